package dev.pulsebus.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import com.fasterxml.jackson.dataformat.toml.TomlMapper;
import dev.pulsebus.internal.JsonStreaming;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bot's configuration, in three layers, later ones winning: the TOML file the operator edits
 * ({@code config/pulsebus.toml}: framework settings and one table per module), the runtime file beside
 * it ({@code pulsebus.runtime.toml}: what code {@link #set} at run time, so the operator's file and its
 * comments are never rewritten), and environment variables ({@code PULSEBUS_SERVER_PORT} sets
 * {@code server.port}; {@code __} stands for a dot after the section: {@code PULSEBUS_MODULES_WEATHER__CITY}
 * sets {@code modules.weather.city}).
 *
 * <p><b>Reads</b> are a volatile read of the current immutable {@link ConfigSnapshot} and a map lookup:
 * no lock, no allocation. <b>Writes</b> ({@link #set}) replace the snapshot at once (readers see them),
 * and are written to the runtime file after {@code flushDelay}, many writes in one file write, always
 * atomically (a temporary file renamed over the old one), and on {@link #close()}.
 *
 * <p>A file that does not parse at start is a {@link ConfigException} naming its line. With
 * {@code watch} on, edits of either file are picked up while the bot runs; an edit that does not parse
 * keeps the last good snapshot, and the reason is logged. Every change is reported as a
 * {@link ConfigChanged} to the {@code onChange} listener (the server publishes it on the bus).
 */
public final class Config implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Config.class);

    /** Jackson's TOML mapper, made on first write: reading needs only the parser. */
    private static final class Toml {
        static final TomlMapper MAPPER = new TomlMapper();
    }

    /**
     * Jackson's TOML parser, made on first read. It builds a node tree of the file and hands it out as
     * tokens; reading through it rather than the mapper keeps Jackson's object mapper (a few hundred
     * classes, about 150 ms of a server's start) off the path.
     */
    private static final class TomlReader {
        static final TomlFactory FACTORY = new TomlFactory();
    }

    private final @Nullable Path file;
    private final @Nullable Path runtimeFile;
    private final Map<String, Object> env;
    private final Duration flushDelay;
    private final @Nullable Consumer<ConfigChanged> onChange;
    private final @Nullable ScheduledThreadPoolExecutor timer; // only with a file to write
    private Map<String, Object> fileValues;
    private final Map<String, Object> runtimeValues;
    private volatile ConfigSnapshot snapshot;
    private @Nullable ScheduledFuture<?> pendingFlush;
    private @Nullable WatchService watcher;
    private volatile boolean closed;
    private boolean dirty; // runtime values not yet written

    private Config(Builder b) {
        this.file = b.file;
        this.runtimeFile = b.file == null ? null : runtimeFileOf(b.file);
        this.env = fromEnv(b.env != null ? b.env : System.getenv());
        this.flushDelay = b.flushDelay;
        this.onChange = b.onChange;
        this.fileValues = file == null ? Map.of() : read(file, b.optional);
        this.runtimeValues = new LinkedHashMap<>(runtimeFile == null ? Map.of() : read(runtimeFile, true));
        this.snapshot = merge();
        if (file != null) {
            this.timer = new ScheduledThreadPoolExecutor(1, r -> Thread.ofPlatform().daemon().name("pulsebus-config").unstarted(r));
            timer.setRemoveOnCancelPolicy(true);
        } else {
            this.timer = null;
        }
        if (b.watch && file != null) {
            watch();
        }
    }

    /** A configuration read from {@code file} ({@code null}: defaults and the environment only). */
    public static Builder builder(@Nullable Path file) {
        return new Builder(file);
    }

    /** Defaults only: no file, no environment. */
    public static Config empty() {
        return builder(null).env(Map.of()).watch(false).build();
    }

    /** The current snapshot: keep it to read several values that belong together. */
    public ConfigSnapshot snapshot() {
        return snapshot;
    }

    public String getString(String key, String dflt) {
        return snapshot.getString(key, dflt);
    }

    public int getInt(String key, int dflt) {
        return snapshot.getInt(key, dflt);
    }

    public long getLong(String key, long dflt) {
        return snapshot.getLong(key, dflt);
    }

    public double getDouble(String key, double dflt) {
        return snapshot.getDouble(key, dflt);
    }

    public boolean getBoolean(String key, boolean dflt) {
        return snapshot.getBoolean(key, dflt);
    }

    public Duration getDuration(String key, Duration dflt) {
        return snapshot.getDuration(key, dflt);
    }

    /**
     * Sets {@code key} (dotted, e.g. {@code modules.weather.city}) to a String, integer, floating-point or
     * boolean {@code value}; readers see it at once, the runtime file gets it after the flush delay. An
     * environment variable for the same key still wins over it.
     */
    public void set(String key, Object value) {
        Objects.requireNonNull(key, "key");
        Object v = normalize(Objects.requireNonNull(value, "value"), key);
        boolean changed;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("configuration is closed");
            }
            if (!snapshot.values().containsKey(key)) {
                checkNoConflict(key, snapshot.values());
            }
            runtimeValues.put(key, v);
            dirty = true;
            if (!env.containsKey(key)) { // an environment override stays in force
                Map<String, Object> next = new HashMap<>(snapshot.values());
                changed = !v.equals(next.put(key, v));
                snapshot = new ConfigSnapshot(next);
            } else {
                changed = false;
            }
            if (timer != null && pendingFlush == null) {
                pendingFlush = timer.schedule(this::flushQuietly, flushDelay.toNanos(), TimeUnit.NANOSECONDS);
            }
        }
        if (changed) {
            notifyChange(Set.of(key));
        }
    }

    /** Writes pending runtime values now (atomically); a no-op without a file. */
    public synchronized void flush() throws IOException {
        if (pendingFlush != null) {
            pendingFlush.cancel(false);
            pendingFlush = null;
        }
        if (runtimeFile == null || !dirty) {
            return;
        }
        dirty = false;
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        for (Map.Entry<String, Object> e : new TreeMap<>(runtimeValues).entrySet()) {
            put(root, e.getKey(), e.getValue());
        }
        String text = "# Written by PulseBus: values set at run time. They override "
                + file.getFileName() + "; delete a line to fall back to it.\n"
                + (root.isEmpty() ? "" : Toml.MAPPER.writeValueAsString(root));
        Path tmp = runtimeFile.resolveSibling(runtimeFile.getFileName() + ".tmp");
        Files.writeString(tmp, text);
        try {
            Files.move(tmp, runtimeFile, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, runtimeFile, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (IOException | RuntimeException e) {
            synchronized (this) {
                dirty = true;
            }
            LOG.warn("Cannot write {}: {}; the values stay in memory and are tried again on the next write",
                    runtimeFile, e.toString());
        }
    }

    /** A key that is also a table of other keys ({@code a} and {@code a.b}) has no TOML form: refuse it. */
    private static void checkNoConflict(String key, Map<String, Object> existing) {
        for (String k : existing.keySet()) {
            if (k.startsWith(key + ".") || key.startsWith(k + ".")) {
                throw new ConfigException(key + " conflicts with " + k + ": a key cannot also be a table of keys");
            }
        }
    }

    /**
     * Reads the files again; returns the keys that changed. A file that does not parse leaves the
     * snapshot as it was and is logged.
     */
    public Set<String> reload() {
        Map<String, Object> nextFile;
        Map<String, Object> nextRuntime;
        try {
            nextFile = file == null ? Map.of() : read(file, true);
            nextRuntime = runtimeFile == null ? Map.of() : read(runtimeFile, true);
        } catch (ConfigException e) {
            LOG.warn("Configuration not reloaded, keeping the last good one: {}", e.getMessage());
            return Set.of();
        }
        Set<String> changed;
        synchronized (this) {
            ConfigSnapshot before = snapshot;
            fileValues = nextFile;
            if (!dirty) { // unwritten sets of ours win over an older runtime file
                runtimeValues.clear();
                runtimeValues.putAll(nextRuntime);
            }
            snapshot = merge();
            changed = diff(before.asMap(), snapshot.asMap());
        }
        if (!changed.isEmpty()) {
            LOG.info("Configuration reloaded: {} changed", changed);
            notifyChange(changed);
        }
        return changed;
    }

    /** The file code writes go to: {@code <name>.runtime.toml} beside the configuration file. */
    public @Nullable Path runtimeFile() {
        return runtimeFile;
    }

    /** Writes pending values and stops following the files. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        flushQuietly();
        if (watcher != null) {
            try {
                watcher.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        if (timer != null) {
            timer.shutdownNow();
        }
    }

    private void notifyChange(Set<String> keys) {
        if (onChange == null) {
            return;
        }
        try {
            onChange.accept(new ConfigChanged(Set.copyOf(keys)));
        } catch (RuntimeException e) {
            LOG.warn("A configuration change listener failed: {}", e.toString());
        }
    }

    private ConfigSnapshot merge() {
        Map<String, Object> all = new HashMap<>(fileValues.size() + runtimeValues.size() + env.size());
        all.putAll(fileValues);
        all.putAll(runtimeValues);
        all.putAll(env);
        return new ConfigSnapshot(all);
    }

    private void watch() {
        Path dir = file.toAbsolutePath().getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            return;
        }
        try {
            watcher = FileSystems.getDefault().newWatchService();
            dir.register(watcher, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE);
        } catch (IOException e) {
            LOG.warn("Cannot watch {} for edits: {}; edits need a restart", dir, e.toString());
            return;
        }
        Set<Path> names = Set.of(file.getFileName(), runtimeFile.getFileName());
        Thread.ofPlatform().daemon().name("pulsebus-config-watch").start(() -> {
            try {
                while (!closed) {
                    WatchKey key = watcher.take();
                    boolean ours = key.pollEvents().stream().anyMatch(e -> names.contains((Path) e.context()));
                    key.reset();
                    if (ours) {
                        Thread.sleep(50); // let the editor finish writing
                        reload();
                    }
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                // closed
            }
        });
    }

    // ------------------------------------------------------------------ reading and writing TOML

    static Path runtimeFileOf(Path file) {
        String name = file.getFileName().toString();
        String base = name.endsWith(".toml") ? name.substring(0, name.length() - 5) : name;
        return file.resolveSibling(base + ".runtime.toml");
    }

    private static Map<String, Object> read(Path path, boolean optional) {
        String text;
        try {
            text = Files.readString(path);
        } catch (NoSuchFileException e) {
            if (optional) {
                return Map.of();
            }
            throw new ConfigException("config file " + path + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
        Map<String, Object> flat = new LinkedHashMap<>();
        try (JsonParser p = TomlReader.FACTORY.createParser(text)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                flatten("", p, flat);
            }
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ConfigException(path + (loc == null ? "" : ": line " + loc.getLineNr() + ", column "
                    + loc.getColumnNr()) + ": " + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new ConfigException("cannot read config file " + path + ": " + e.getMessage(), e);
        }
        return flat;
    }

    /** The table {@code p} is in, as dotted keys: numbers as long or double, arrays as their JSON text. */
    private static void flatten(String prefix, JsonParser p, Map<String, Object> out) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String key = prefix.isEmpty() ? p.currentName() : prefix + "." + p.currentName();
            switch (p.nextToken()) {
                case START_OBJECT -> flatten(key, p, out);
                case VALUE_NUMBER_INT -> out.put(key, p.getNumberValue().longValue());
                case VALUE_NUMBER_FLOAT -> out.put(key, p.getDoubleValue());
                case VALUE_TRUE, VALUE_FALSE -> out.put(key, p.getBooleanValue());
                case START_ARRAY -> {
                    StringWriter json = new StringWriter();
                    try (JsonGenerator g = JsonStreaming.FACTORY.createGenerator(json)) {
                        g.copyCurrentStructure(p);
                    }
                    out.put(key, json.toString());
                }
                default -> out.put(key, p.getText());
            }
        }
    }

    private static void put(ObjectNode root, String dotted, Object value) {
        String[] parts = dotted.split("\\.");
        ObjectNode node = root;
        for (int i = 0; i < parts.length - 1; i++) {
            node = node.withObject("/" + parts[i]);
        }
        String last = parts[parts.length - 1];
        if (value instanceof Long l) {
            node.put(last, l);
        } else if (value instanceof Double d) {
            node.put(last, d);
        } else if (value instanceof Boolean b) {
            node.put(last, b);
        } else {
            node.put(last, value.toString());
        }
    }

    private static Object normalize(Object value, String key) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        if (value instanceof Float || value instanceof Double) {
            return ((Number) value).doubleValue();
        }
        if (value instanceof Boolean || value instanceof String) {
            return value;
        }
        throw new ConfigException(key + ": a configuration value is text, a number or a boolean, not "
                + value.getClass().getSimpleName());
    }

    /** {@code PULSEBUS_SERVER_PORT} → {@code server.port}; {@code __} after the section → a dot. */
    static Map<String, Object> fromEnv(Map<String, String> env) {
        Map<String, Object> out = new HashMap<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String key = keyOf(e.getKey());
            if (key != null) {
                out.put(key, e.getValue()); // text as given: typed only where a setting is read typed
            }
        }
        return out;
    }

    /**
     * The setting an environment variable overrides ({@code PULSEBUS_SERVER_PORT} → {@code server.port},
     * {@code PULSEBUS_MODULES_WEATHER__CITY} → {@code modules.weather.city}), or null when it names none.
     */
    public static @Nullable String keyOf(String variable) {
        if (!variable.startsWith("PULSEBUS_")) {
            return null;
        }
        String rest = variable.substring("PULSEBUS_".length()).toLowerCase(Locale.ROOT);
        int cut = rest.indexOf('_');
        if (cut <= 0 || cut == rest.length() - 1) {
            return null;
        }
        return rest.substring(0, cut) + "." + rest.substring(cut + 1).replace("__", ".");
    }

    private static Set<String> diff(Map<String, Object> a, Map<String, Object> b) {
        Set<String> keys = new HashSet<>();
        a.forEach((k, v) -> {
            if (!v.equals(b.get(k))) {
                keys.add(k);
            }
        });
        b.forEach((k, v) -> {
            if (!a.containsKey(k)) {
                keys.add(k);
            }
        });
        return keys;
    }

    /** Where the configuration comes from and how it behaves. */
    public static final class Builder {
        private final @Nullable Path file;
        private @Nullable Map<String, String> env; // null: System.getenv()
        private boolean optional;
        private boolean watch = true;
        private Duration flushDelay = Duration.ofMillis(200);
        private @Nullable Consumer<ConfigChanged> onChange;

        private Builder(@Nullable Path file) {
            this.file = file;
        }

        /** The environment to take overrides from. Default {@link System#getenv()}. */
        public Builder env(Map<String, String> env) {
            this.env = Objects.requireNonNull(env, "env");
            return this;
        }

        /** A missing file means defaults instead of an error. Default off. */
        public Builder optional(boolean optional) {
            this.optional = optional;
            return this;
        }

        /** Follow edits of the files while running. Default on. */
        public Builder watch(boolean watch) {
            this.watch = watch;
            return this;
        }

        /** How long writes are gathered before the runtime file is written. Default 200 ms. */
        public Builder flushDelay(Duration delay) {
            this.flushDelay = Objects.requireNonNull(delay, "delay");
            return this;
        }

        /** Told of every change (writes and reloaded edits). */
        public Builder onChange(Consumer<ConfigChanged> listener) {
            this.onChange = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** @throws ConfigException when the file does not parse (naming the line) or is missing and required */
        public Config build() {
            return new Config(this);
        }
    }
}
