package dev.pulsebus.server;

import dev.pulsebus.cluster.ClusterSettings;
import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.ConfigSnapshot;
import dev.pulsebus.config.Secret;
import dev.pulsebus.config.Section;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.platform.PlatformSection;
import dev.pulsebus.runtime.BusSettings;
import dev.pulsebus.runtime.ModuleSettings;
import dev.pulsebus.runtime.RuntimeSettings;
import dev.pulsebus.runtime.StorageSettings;
import dev.pulsebus.runtime.TranscriptSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The server's settings: built-in defaults, then {@code config/pulsebus.toml}, then environment
 * variables ({@code PULSEBUS_SERVER_PORT} sets {@code server.port}), then command-line flags. Unknown
 * settings and bad values are errors that name the setting and where it is set (the file's line, or the
 * variable). Each section is a record with a builder ({@code toBuilder()} to change one); the runtime's
 * sections are those of {@link RuntimeSettings}. Tokens and passwords are {@link Secret}s: the records print
 * them masked.
 *
 * @param listen         {@code [server]}
 * @param instance       {@code bot.instance}; empty: the machine's name (in a cluster, with the port)
 * @param metricsEnabled {@code metrics.enabled}: whether {@code /metrics} answers
 * @param storage        {@code [storage]}
 * @param transcripts    {@code [transcript]}
 * @param bus            {@code [bus]}
 * @param modules        {@code [modules]}
 * @param platforms      the platforms' {@code [adapters.<name>]}, read by their providers
 * @param cluster        {@code [cluster]}
 * @param file           the file read, or null
 */
public record ServerConfig(ListenSettings listen, String instance, boolean metricsEnabled, StorageSettings storage,
                           TranscriptSettings transcripts, BusSettings bus, ModuleSettings modules,
                           List<PlatformSection<?>> platforms, ClusterSettings cluster, @Nullable Path file) {

    public ServerConfig {
        platforms = List.copyOf(platforms);
    }

    /** The runtime's part: what {@link dev.pulsebus.runtime.PulseBus} is built from. */
    public RuntimeSettings runtime() {
        return new RuntimeSettings(instance, storage, transcripts, bus, modules, platforms, file);
    }

    /** The settings of the platform sections configured whose settings are of {@code type}, in their sections' order. */
    public <S extends dev.pulsebus.platform.PlatformSettings> List<S> platformSettings(Class<S> type) {
        return runtime().platformSettings(type);
    }

    /** The section {@code [adapters.<name>]} as its provider read it, or null when the file has none. */
    public @Nullable PlatformSection<?> platform(String name) {
        for (PlatformSection<?> p : platforms) {
            if (p.provider().name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** The known sections but the runtime's, and their keys (the runtime's are {@link RuntimeSettings#SECTIONS}). */
    private static final Map<String, Set<String>> KNOWN = Map.of(
            "server", ListenSettings.KEYS,
            "bot", Set.of("instance"),
            "metrics", Set.of("enabled"),
            "storage", StorageSettings.KEYS,
            "transcript", TranscriptSettings.KEYS,
            "bus", BusSettings.KEYS,
            "cluster", ClusterSettings.KEYS,
            "modules", ModuleSettings.KEYS); // and each module's own section, [modules.<id>]; [adapters.<name>]

    /** The platforms on the class path, by their sections' names ({@code [adapters.<name>]}). */
    private static Map<String, PlatformProvider<?>> platformProviders() {
        return PlatformSection.installed();
    }

    /** Defaults only (no file). */
    public static ServerConfig defaults() {
        return from(Config.empty().snapshot(), "defaults", null);
    }

    /**
     * Reads {@code file} (absent and {@code optional}: defaults) and applies {@code env} overrides, through
     * the same {@link Config} the bot uses.
     *
     * @throws ConfigException naming the file, line and setting that is wrong
     */
    public static ServerConfig load(@Nullable Path file, boolean optional, Map<String, String> env) {
        List<String> errors = new ArrayList<>();
        Map<String, PlatformProvider<?>> providers = platformProviders();
        for (String name : new TreeSet<>(env.keySet())) {
            String key = Config.keyOf(name);
            if (key != null && key.startsWith("adapters.")) {
                String rest = key.substring("adapters.".length());
                int dot = rest.indexOf('.');
                String adapter = dot < 0 ? "" : rest.substring(0, dot);
                PlatformProvider<?> provider = providers.get(adapter);
                Set<String> keys = provider == null ? Set.of() : provider.keys();
                if (!keys.contains(rest.substring(dot + 1))) {
                    errors.add("environment variable " + name + " names no setting (" + key + ")");
                }
            } else if (key != null && !key.startsWith("modules.")) {
                int dot = key.indexOf('.');
                Set<String> keys = dot < 0 ? null : KNOWN.get(key.substring(0, dot));
                if (keys == null || !keys.contains(key.substring(dot + 1))) {
                    errors.add("environment variable " + name + " names no setting (" + key + ")");
                }
            }
        }
        try (Config config = Config.builder(file).optional(optional).env(env).watch(false).build()) {
            return from(config.snapshot(), file == null ? "defaults" : file.toString(), file, errors);
        }
    }

    /**
     * The settings {@code snapshot} holds, checked: the same check at start and on each edit while running.
     *
     * @param source what to name in an error when the snapshot does not know where a value comes from
     * @throws ConfigException listing every error at once, each naming where its value comes from (the
     *     file and line, or the environment variable)
     */
    static ServerConfig from(ConfigSnapshot snapshot, String source, @Nullable Path file) {
        return from(snapshot, source, file, new ArrayList<>());
    }

    private static ServerConfig from(ConfigSnapshot snapshot, String source, @Nullable Path file, List<String> errors) {
        try {
            return read(snapshot, source, file, errors);
        } catch (ConfigException e) {
            errors.add(e.getMessage());
        }
        throw new ConfigException(errors.size() == 1 ? errors.get(0)
                : errors.size() + " configuration errors:\n  " + String.join("\n  ", errors));
    }

    /** Where {@code key}'s value comes from, for an error: its file and line, its variable, else {@code source}. */
    private static String where(ConfigSnapshot snapshot, String key, String source) {
        String o = snapshot.origin(key);
        return o != null ? o : source;
    }

    /** Adds {@code message}, unless {@code load} has already said that this variable names no setting. */
    private static void unknown(List<String> errors, String message) {
        int colon = message.indexOf(": ");
        String where = colon < 0 ? message : message.substring(0, colon);
        if (errors.stream().noneMatch(e -> e.startsWith(where + " names no setting")) && !errors.contains(message)) {
            errors.add(message);
        }
    }

    /** Reads every section, adding each error to {@code errors}; throws them all at the end. */
    private static ServerConfig read(ConfigSnapshot snapshot, String source, @Nullable Path file, List<String> errors) {
        for (String key : new TreeSet<>(snapshot.asMap().keySet())) {
            int dot = key.indexOf('.');
            String section = dot < 0 ? key : key.substring(0, dot);
            String where = java.util.Objects.requireNonNullElse(snapshot.origin(key), source);
            if (section.equals("adapters") || section.equals("modules")) {
                continue; // the runtime reads them
            }
            Set<String> keys = KNOWN.get(section);
            if (keys == null || dot < 0) {
                List<String> known = new ArrayList<>(KNOWN.keySet());
                known.add("adapters");
                unknown(errors, where + ": unknown section [" + section + "]; known: "
                        + String.join(", ", known.stream().sorted().toList()));
            } else if (!keys.contains(key.substring(dot + 1))) {
                unknown(errors, where + ": unknown setting " + key + "; known in [" + section + "]: "
                        + String.join(", ", keys.stream().sorted().toList()));
            }
        }
        String clusterSource = where(snapshot, "cluster", source);
        ClusterSettings cluster;
        try {
            cluster = ClusterSettings.read(section(snapshot, "cluster", source, errors));
            cluster.checkSharedStorage(snapshot.getString("storage.jdbc_url", ""), clusterSource);
        } catch (ConfigException e) {
            errors.add(e.getMessage());
            cluster = ClusterSettings.disabled();
        }
        ListenSettings listen = ListenSettings.read(section(snapshot, "server", source, errors));
        boolean metrics = section(snapshot, "metrics", source, errors).bool("enabled", true);
        RuntimeSettings runtime = RuntimeSettings.read(snapshot, source, file,
                new PlatformProvider.Deployment(cluster.enabled(), listen.host()), errors);
        ServerConfig built = new ServerConfig(listen, runtime.instance(), metrics, runtime.storage(),
                runtime.transcripts(), runtime.bus(), runtime.modules(), runtime.platforms(), cluster, file);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors.remove(errors.size() - 1)); // from() lists them all
        }
        return built;
    }

    /** Section {@code name} of {@code snapshot} with its errors collected (its unknown keys are checked above). */
    private static Section section(ConfigSnapshot snapshot, String name, String source, List<String> errors) {
        Map<String, String> values = new LinkedHashMap<>();
        Map<String, String> origins = new LinkedHashMap<>();
        Set<String> keys = java.util.Objects.requireNonNull(KNOWN.get(name), name);
        for (String k : keys) {
            if (snapshot.has(name + "." + k)) {
                values.put(k, snapshot.getString(name + "." + k, ""));
                String o = snapshot.origin(name + "." + k);
                if (o != null) {
                    origins.put(k, o);
                }
            }
        }
        return Section.of(name, values, origins, keys, source).collectingInto(errors);
    }

    /** This config with the command line's overrides. */
    ServerConfig with(@Nullable Integer port, @Nullable Path dataDir) {
        return toBuilder().listen(port == null ? listen : listen.toBuilder().port(port).build())
                .storage(dataDir == null ? storage : storage.toBuilder().dataDir(dataDir).build()).build();
    }

    /** This configuration with its modules folder at {@code dir} (no setting names it: it is {@code modules}). */
    ServerConfig withModulesDir(Path dir) {
        return toBuilder().modules(modules.toBuilder().dir(dir).build()).build();
    }

    public static Builder builder() {
        return defaults().toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds a {@link ServerConfig} section by section, from the defaults or from a copy. Not thread-safe. */
    public static final class Builder {
        private ListenSettings listen;
        private String instance;
        private boolean metricsEnabled;
        private StorageSettings storage;
        private TranscriptSettings transcripts;
        private BusSettings bus;
        private ModuleSettings modules;
        private List<PlatformSection<?>> platforms;
        private ClusterSettings cluster;
        private @Nullable Path file;

        private Builder(ServerConfig c) {
            listen = c.listen;
            instance = c.instance;
            metricsEnabled = c.metricsEnabled;
            storage = c.storage;
            transcripts = c.transcripts;
            bus = c.bus;
            modules = c.modules;
            platforms = c.platforms;
            cluster = c.cluster;
            file = c.file;
        }

        public Builder listen(ListenSettings listen) {
            this.listen = listen;
            return this;
        }

        public Builder instance(String instance) {
            this.instance = instance;
            return this;
        }

        public Builder metricsEnabled(boolean enabled) {
            this.metricsEnabled = enabled;
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

        public Builder cluster(ClusterSettings cluster) {
            this.cluster = cluster;
            return this;
        }

        public Builder file(@Nullable Path file) {
            this.file = file;
            return this;
        }

        public ServerConfig build() {
            return new ServerConfig(listen, instance, metricsEnabled, storage, transcripts, bus, modules, platforms,
                    cluster, file);
        }
    }
}
