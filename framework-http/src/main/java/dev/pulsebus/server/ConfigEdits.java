package dev.pulsebus.server;

import dev.pulsebus.config.Config;
import dev.pulsebus.config.ConfigChanged;
import dev.pulsebus.config.ConfigSnapshot;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an edit of the configuration does while the server runs, said truthfully. A module's own setting
 * ({@code [modules.<id>]}, but {@code enabled}) is live: {@code ctx.settings()} reads the current snapshot,
 * so the module's next answer uses it. {@code modules.<id>.enabled} applies after reloading that module;
 * every other setting (the server's, storage, adapters, cluster) is read once at start and applies after
 * a restart. Each changed key is logged so; those not yet in force are {@link #pending()} (shown in
 * {@code /api/admin/stats} and the console) until their value is back to the one running.
 */
final class ConfigEdits {

    private static final Logger LOG = LoggerFactory.getLogger(PulseBusServer.class);
    static final String RESTART = "after a restart";

    private volatile @Nullable Config live;
    private volatile @Nullable ConfigSnapshot running; // the snapshot the server started with
    private volatile Map<String, String> pending = Map.of(); // key -> when it applies, sorted

    /** The live configuration, once built: its snapshot now is what restart settings are compared against. */
    void started(Config config) {
        this.running = config.snapshot();
        this.live = config;
    }

    /** Logs what each changed key does and updates the pending list. */
    void changed(ConfigChanged change) {
        ConfigSnapshot start = running;
        Config config = live;
        if (start == null || config == null) {
            return; // a write while starting: what it sets is what starts
        }
        ConfigSnapshot now = config.snapshot();
        for (String key : new TreeSet<>(change.keys())) {
            String applies = appliesWhen(key);
            String where = fileOf(now.origin(key), start.origin(key));
            if (applies == null) {
                String module = key.substring("modules.".length(), key.indexOf('.', "modules.".length()));
                LOG.info("Configuration: {} changed in {}; applied: module {} reads it on its next use (a setting "
                        + "it reads only when loading applies after reloading module {})", key, where, module, module);
            } else {
                LOG.warn("Configuration: {} changed in {}; applies {}", key, where, applies);
            }
        }
        Map<String, String> next = new TreeMap<>();
        Map<String, Object> was = start.asMap();
        Map<String, Object> is = now.asMap();
        for (String key : union(was, is)) {
            String applies = appliesWhen(key);
            if (applies != null && !Objects.equals(was.get(key), is.get(key))) {
                next.put(key, applies);
            }
        }
        pending = Collections.unmodifiableMap(next);
    }

    /** Changed settings not yet in force: key to when it applies ("after a restart", "after reloading module X"). */
    Map<String, String> pending() {
        return pending;
    }

    /** Null for a live setting; else when it applies. */
    static @Nullable String appliesWhen(String key) {
        if (key.startsWith("modules.")) {
            String rest = key.substring("modules.".length());
            int dot = rest.indexOf('.');
            if (dot > 0) {
                String module = rest.substring(0, dot);
                return rest.substring(dot + 1).equals("enabled") ? "after reloading module " + module : null;
            }
        }
        return RESTART;
    }

    /** The file a value is in, from its origin ({@code "FILE, line N"}); the old one's for a removed key. */
    private static String fileOf(@Nullable String origin, @Nullable String before) {
        String o = origin != null ? origin : before != null ? before : "the configuration";
        int cut = o.lastIndexOf(", line ");
        return cut < 0 ? o : o.substring(0, cut);
    }

    private static Set<String> union(Map<String, Object> a, Map<String, Object> b) {
        Set<String> keys = new TreeSet<>(a.keySet());
        keys.addAll(b.keySet());
        return keys;
    }
}
