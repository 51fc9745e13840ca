package dev.pulsebus.config;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
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
 * or that the {@linkplain Builder#validate validator} refuses keeps the last good snapshot, and the reason
 * is logged as an error naming the file and line. Each value knows where it comes from
 * ({@link ConfigSnapshot#origin}: the file and line, or the environment variable). Every change is reported as a
 * {@link ConfigChanged} to the {@code onChange} listener (the server publishes it on the bus).
 *
 * <p>This class holds the layers and the snapshot; {@link TomlFiles} reads and writes the files,
 * {@link EnvOverrides} maps the environment, {@link RuntimeFile} gathers the writes and
 * {@link ConfigWatcher} follows the edits.
 */
public final class Config implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Config.class);

    private final @Nullable Path file;
    private final Map<String, Object> env;
    private final Map<String, String> envOrigins;
    private final @Nullable Consumer<ConfigChanged> onChange;
    private final @Nullable Consumer<ConfigSnapshot> validator;
    private Map<String, Object> fileValues;
    private Map<String, Integer> fileLines = Map.of();
    private final RuntimeFile runtime;
    private volatile ConfigSnapshot snapshot;
    private final @Nullable ConfigWatcher watcher;
    private volatile boolean closed;

    private Config(Builder b) {
        this.file = b.file;
        Map<String, String> environment = b.env != null ? b.env : System.getenv();
        this.env = EnvOverrides.of(environment);
        this.envOrigins = EnvOverrides.origins(environment);
        this.onChange = b.onChange;
        this.validator = b.validator;
        Map<String, Integer> lines = new HashMap<>();
        this.fileValues = file == null ? Map.of() : TomlFiles.read(file, b.optional, lines);
        this.fileLines = lines;
        this.runtime = new RuntimeFile(file, b.flushDelay);
        this.snapshot = merge();
        Path runtimePath = runtime.path(); // null exactly when file is
        this.watcher = b.watch && file != null && runtimePath != null
                ? ConfigWatcher.start(file, runtimePath, () -> closed, this::reload) : null;
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
        Object v = TomlFiles.normalize(Objects.requireNonNull(value, "value"), key);
        boolean changed;
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("configuration is closed");
            }
            if (!snapshot.values().containsKey(key)) {
                TomlFiles.checkNoConflict(key, snapshot.values());
            }
            runtime.put(key, v); // and the write, after the flush delay
            if (!env.containsKey(key)) { // an environment override stays in force
                Map<String, Object> next = new HashMap<>(snapshot.values());
                changed = !v.equals(next.put(key, v));
                // shared with the last snapshot unless this key's origin changes (a key set again, as a
                // running bot does, copies nothing): snapshots never change their maps
                Map<String, String> origins = snapshot.origins();
                java.nio.file.Path file = runtime.path();
                String at = file == null ? null : file.toString();
                if (at != null && !at.equals(origins.get(key))) {
                    origins = new HashMap<>(origins);
                    origins.put(key, at);
                }
                snapshot = new ConfigSnapshot(next, origins);
            } else {
                changed = false;
            }
        }
        if (changed) {
            notifyChange(Set.of(key));
        }
    }

    /** Writes pending runtime values now (atomically); a no-op without a file. */
    public void flush() throws IOException {
        runtime.flush();
    }

    /**
     * Reads the files again; returns the keys that changed. A file that does not parse, or a snapshot the
     * {@linkplain Builder#validate validator} refuses, leaves the snapshot as it was and is logged as an
     * error naming the file and line.
     */
    public Set<String> reload() {
        Map<String, Object> nextFile;
        Map<String, Object> nextRuntime;
        Map<String, Integer> nextLines = new HashMap<>();
        try {
            nextFile = file == null ? Map.of() : TomlFiles.read(file, true, nextLines);
            nextRuntime = runtime.read();
        } catch (ConfigException e) {
            LOG.error("Configuration edit rejected, the running configuration is kept: {}", e.getMessage());
            return Set.of();
        }
        Set<String> changed;
        synchronized (this) {
            ConfigSnapshot before = snapshot;
            Map<String, Object> oldFile = fileValues;
            Map<String, Integer> oldLines = fileLines;
            Map<String, Object> oldRuntime = runtime.values();
            fileValues = nextFile;
            fileLines = nextLines;
            runtime.reloaded(nextRuntime); // unless unwritten sets of ours, which win over an older file
            ConfigSnapshot next = merge();
            changed = diff(before.asMap(), next.asMap());
            if (!changed.isEmpty() && validator != null) {
                try {
                    validator.accept(next);
                } catch (ConfigException e) {
                    fileValues = oldFile;
                    fileLines = oldLines;
                    runtime.reloaded(oldRuntime);
                    LOG.error("Configuration edit rejected, the running configuration is kept:\n{}", e.getMessage());
                    return Set.of();
                }
            }
            snapshot = next;
        }
        if (!changed.isEmpty()) {
            if (onChange == null) {
                LOG.info("Configuration reloaded: {} changed", changed);
            }
            notifyChange(changed);
        }
        return changed;
    }

    /** The file code writes go to: {@code <name>.runtime.toml} beside the configuration file. */
    public @Nullable Path runtimeFile() {
        return runtime.path();
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
        runtime.flushQuietly();
        if (watcher != null) {
            watcher.close();
        }
        runtime.close();
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
        Map<String, Object> all = new HashMap<>(fileValues.size() + runtime.size() + env.size());
        all.putAll(fileValues);
        runtime.copyInto(all);
        all.putAll(env);
        Map<String, String> origins = new HashMap<>(all.size());
        for (String k : fileValues.keySet()) {
            String written = k; // a key inside an inline table or array: the line of its parent
            while (!fileLines.containsKey(written) && written.lastIndexOf('.') > 0) {
                written = written.substring(0, written.lastIndexOf('.'));
            }
            Integer line = fileLines.get(written);
            origins.put(k, line == null ? String.valueOf(file) : file + ", line " + line);
        }
        if (runtime.path() != null) {
            runtime.values().keySet().forEach(k -> origins.put(k, String.valueOf(runtime.path())));
        }
        origins.putAll(envOrigins);
        return new ConfigSnapshot(all, origins);
    }

    /**
     * The setting an environment variable overrides ({@code PULSEBUS_SERVER_PORT} → {@code server.port},
     * {@code PULSEBUS_MODULES_WEATHER__CITY} → {@code modules.weather.city}), or null when it names none.
     */
    public static @Nullable String keyOf(String variable) {
        return EnvOverrides.keyOf(variable);
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
        private @Nullable Consumer<ConfigSnapshot> validator;

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

        /**
         * Checks each reloaded snapshot before it replaces the running one: a {@link ConfigException} it
         * throws keeps the running snapshot, and is logged. The server passes the check it starts with.
         */
        public Builder validate(Consumer<ConfigSnapshot> check) {
            this.validator = Objects.requireNonNull(check, "check");
            return this;
        }

        /**
         * Reads the file and builds the configuration.
         *
         * @throws ConfigException when the file does not parse (naming the line) or is missing and required
         */
        public Config build() {
            return new Config(this);
        }
    }
}
