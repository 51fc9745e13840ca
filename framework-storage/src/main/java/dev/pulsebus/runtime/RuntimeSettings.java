package dev.pulsebus.runtime;

import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.config.Section;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.platform.PlatformSection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * What a bot's runtime ({@link PulseBus}) is configured with: {@code [bot]}, {@code [storage]},
 * {@code [transcript]}, {@code [bus]}, {@code [modules]} and the platforms' {@code [adapters.<name>]}, each a
 * section record with a builder. The server's settings add its listener and the cluster to these.
 *
 * @param instance    this bot's name ({@code bot.instance}); empty: the machine's name and process id
 * @param storage     {@code [storage]}
 * @param transcripts {@code [transcript]}
 * @param bus         {@code [bus]}
 * @param modules     {@code [modules]}
 * @param platforms   the platforms' sections, read by their providers (found on the class path)
 * @param file        the configuration file they were read from (watched for module settings), or null
 */
public record RuntimeSettings(String instance, StorageSettings storage, TranscriptSettings transcripts, BusSettings bus,
                              ModuleSettings modules, List<PlatformSection<?>> platforms, @Nullable Path file) {

    /** The sections a runtime reads; {@code modules} and {@code adapters} also hold sections of their own. */
    public static final Set<String> SECTIONS = Set.of("bot", "storage", "transcript", "bus", "modules", "adapters");
    /** Every setting at its default, no platform. */
    public static final RuntimeSettings DEFAULTS = new RuntimeSettings("", StorageSettings.DEFAULTS,
            TranscriptSettings.DEFAULTS, BusSettings.DEFAULTS, ModuleSettings.DEFAULTS, List.of(), null);

    public RuntimeSettings {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(transcripts, "transcripts");
        Objects.requireNonNull(bus, "bus");
        Objects.requireNonNull(modules, "modules");
        platforms = List.copyOf(platforms);
    }

    /**
     * Reads {@code file} (absent: defaults) with environment overrides ({@code PULSEBUS_STORAGE_JDBC_URL}), for
     * a bot that runs without the HTTP server: a section it does not read ({@code [server]}) is an error.
     *
     * @throws ConfigException listing every error at once, each naming the file and line or the variable
     */
    public static RuntimeSettings load(@Nullable Path file, Map<String, String> env) {
        try (Config config = Config.builder(file).optional(true).env(env).watch(false).build()) {
            ConfigSnapshot snapshot = config.snapshot();
            String source = file == null ? "defaults" : file.toString();
            List<String> errors = new ArrayList<>();
            for (String key : new TreeSet<>(snapshot.asMap().keySet())) {
                int dot = key.indexOf('.');
                String section = dot < 0 ? key : key.substring(0, dot);
                if (!SECTIONS.contains(section)) {
                    String o = snapshot.origin(key);
                    String e = (o != null ? o : source) + ": unknown section [" + section + "]"
                            + " for a bot without the HTTP server; known: "
                            + String.join(", ", new TreeSet<>(SECTIONS));
                    if (!errors.contains(e)) {
                        errors.add(e);
                    }
                }
            }
            RuntimeSettings read = read(snapshot, source, file, PlatformProvider.Deployment.ALONE, errors);
            if (!errors.isEmpty()) {
                throw new ConfigException(errors.size() == 1 ? errors.get(0)
                        : errors.size() + " configuration errors:\n  " + String.join("\n  ", errors));
            }
            return read;
        }
    }

    /**
     * Reads the runtime's sections of {@code snapshot}, adding every error to {@code errors} (a setting in error
     * reads as its default); the caller checks the sections it does not know and throws the errors.
     *
     * @param source     what to name in an error when the snapshot does not know where a value comes from
     * @param deployment what the platforms run in
     */
    public static RuntimeSettings read(ConfigSnapshot snapshot, String source, @Nullable Path file,
                                       PlatformProvider.Deployment deployment, List<String> errors) {
        Map<String, PlatformProvider<?>> providers = PlatformSection.installed();
        Map<String, Map<String, String>> moduleSections = new LinkedHashMap<>();
        Set<String> adapters = new TreeSet<>();
        for (String key : new TreeSet<>(snapshot.asMap().keySet())) {
            String where = Objects.requireNonNullElse(snapshot.origin(key), source);
            if (key.startsWith("modules.")) {
                String rest = key.substring("modules.".length());
                int cut = rest.indexOf('.');
                if (cut > 0) {
                    moduleSections.computeIfAbsent(rest.substring(0, cut), m -> new LinkedHashMap<>())
                            .put(rest.substring(cut + 1), snapshot.getString(key, ""));
                } else if (!ModuleSettings.KEYS.contains(rest)) {
                    errors.add(where + ": unknown setting " + key + "; known in [modules]: "
                            + String.join(", ", new TreeSet<>(ModuleSettings.KEYS))
                            + ", and a module's own settings go in [modules.<id>]");
                }
            } else if (key.startsWith("adapters.") || key.equals("adapters")) {
                String rest = key.length() > "adapters.".length() ? key.substring("adapters.".length()) : "";
                int cut = rest.indexOf('.');
                String adapter = cut < 0 ? rest : rest.substring(0, cut);
                if (!providers.containsKey(adapter) || cut < 0) {
                    String e = where + ": unknown section [adapters." + adapter + "]; known: "
                            + (providers.isEmpty() ? "none (no platform is on the class path)"
                            : String.join(", ", providers.keySet().stream().map(n -> "adapters." + n).toList()));
                    if (!errors.contains(e)) {
                        errors.add(e);
                    }
                } else {
                    adapters.add(adapter);
                }
            }
        }
        String instance = section(snapshot, "bot", Set.of("instance"), source, errors).text("instance", "");
        StorageSettings storage = StorageSettings.read(section(snapshot, "storage", StorageSettings.KEYS, source,
                errors));
        TranscriptSettings transcripts = TranscriptSettings.read(section(snapshot, "transcript",
                TranscriptSettings.KEYS, source, errors));
        BusSettings bus = BusSettings.read(section(snapshot, "bus", BusSettings.KEYS, source, errors));
        Map<String, String> own = new LinkedHashMap<>();
        for (String k : ModuleSettings.KEYS) {
            if (snapshot.has("modules." + k)) {
                own.put(k, snapshot.getString("modules." + k, ""));
            }
        }
        ModuleSettings modules = ModuleSettings.read(Section.of("modules", own, Map.of(), ModuleSettings.KEYS, source)
                .collectingInto(errors), moduleSections);
        List<PlatformSection<?>> platforms = new ArrayList<>();
        for (String name : adapters) {
            PlatformProvider<?> provider = Objects.requireNonNull(providers.get(name));
            try {
                platforms.add(PlatformSection.read(provider, Section.of(snapshot, "adapters." + name, provider.keys(),
                        source), deployment));
            } catch (ConfigException e) {
                errors.add(e.getMessage());
            }
        }
        return new RuntimeSettings(instance, storage, transcripts, bus, modules, platforms, file);
    }

    /** Section {@code name} of {@code snapshot}, its errors collected; an unknown key is one, and then it is empty. */
    private static Section section(ConfigSnapshot snapshot, String name, Set<String> keys, String source,
                                   List<String> errors) {
        try {
            return Section.of(snapshot, name, keys, source).collectingInto(errors);
        } catch (ConfigException e) {
            errors.add(e.getMessage());
            return Section.of(name, Map.of(), Map.of(), keys, source);
        }
    }

    /** The settings of the platforms configured whose settings are of {@code type}, in their sections' order. */
    public <S extends dev.pulsebus.platform.PlatformSettings> List<S> platformSettings(Class<S> type) {
        return platforms.stream().map(PlatformSection::settings).filter(type::isInstance).map(type::cast).toList();
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link RuntimeSettings}, from the defaults or from a copy. Not thread-safe. */
    public static final class Builder {
        private String instance;
        private StorageSettings storage;
        private TranscriptSettings transcripts;
        private BusSettings bus;
        private ModuleSettings modules;
        private List<PlatformSection<?>> platforms;
        private @Nullable Path file;

        private Builder(RuntimeSettings s) {
            this.instance = s.instance;
            this.storage = s.storage;
            this.transcripts = s.transcripts;
            this.bus = s.bus;
            this.modules = s.modules;
            this.platforms = s.platforms;
            this.file = s.file;
        }

        public Builder instance(String instance) {
            this.instance = instance;
            return this;
        }

        public Builder storage(StorageSettings storage) {
            this.storage = storage;
            return this;
        }

        public Builder transcripts(TranscriptSettings transcripts) {
            this.transcripts = transcripts;
            return this;
        }

        public Builder bus(BusSettings bus) {
            this.bus = bus;
            return this;
        }

        public Builder modules(ModuleSettings modules) {
            this.modules = modules;
            return this;
        }

        public Builder platforms(List<PlatformSection<?>> platforms) {
            this.platforms = platforms;
            return this;
        }

        public Builder file(@Nullable Path file) {
            this.file = file;
            return this;
        }

        public RuntimeSettings build() {
            return new RuntimeSettings(instance, storage, transcripts, bus, modules, platforms, file);
        }
    }
}
