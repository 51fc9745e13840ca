package dev.pulsebus.runtime;

import dev.pulsebus.config.Section;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code [modules]}: where module jars are loaded from, how long one may take to load, and each module's own
 * settings ({@code [modules.<id>]}, read by the module through its context).
 *
 * @param dir           the folder of module jars ({@code modules}; not a setting)
 * @param loadTimeoutMs a module's {@code onLoad} past this is rolled back ({@code load_timeout_ms}, 10,000)
 * @param modules       each module's own settings as the file has them, by module id
 */
public record ModuleSettings(Path dir, int loadTimeoutMs, Map<String, Map<String, String>> modules) {

    /** The section's own keys (a module's settings go in {@code [modules.<id>]}). */
    public static final Set<String> KEYS = Set.of("load_timeout_ms");
    /** Every setting at its default. */
    public static final ModuleSettings DEFAULTS = new ModuleSettings(Path.of("modules"), 10_000, Map.of());

    public ModuleSettings {
        Objects.requireNonNull(dir, "dir");
        modules = Map.copyOf(modules);
    }

    /** Reads {@code [modules]} with the modules' sections {@code modules} (read apart: their keys are theirs). */
    public static ModuleSettings read(Section s, Map<String, Map<String, String>> modules) {
        return new ModuleSettings(DEFAULTS.dir, s.integer("load_timeout_ms", DEFAULTS.loadTimeoutMs, 1, 3_600_000),
                modules.entrySet().stream().collect(java.util.stream.Collectors.toUnmodifiableMap(Map.Entry::getKey,
                        e -> Map.copyOf(e.getValue()))));
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link ModuleSettings}. Not thread-safe. */
    public static final class Builder {
        private Path dir;
        private int loadTimeoutMs;
        private Map<String, Map<String, String>> modules;

        private Builder(ModuleSettings s) {
            this.dir = s.dir;
            this.loadTimeoutMs = s.loadTimeoutMs;
            this.modules = s.modules;
        }

        public Builder dir(Path dir) {
            this.dir = dir;
            return this;
        }

        public Builder loadTimeoutMs(int loadTimeoutMs) {
            this.loadTimeoutMs = loadTimeoutMs;
            return this;
        }

        public Builder modules(Map<String, Map<String, String>> modules) {
            this.modules = modules;
            return this;
        }

        public ModuleSettings build() {
            return new ModuleSettings(dir, loadTimeoutMs, modules);
        }
    }
}
