package dev.pulsebus.platform;

import dev.pulsebus.config.ConfigException;
import dev.pulsebus.config.Section;
import java.util.Set;

/**
 * A chat platform, plugged in: found by {@link java.util.ServiceLoader} (a jar lists its provider in
 * {@code META-INF/services/dev.pulsebus.platform.PlatformProvider}), configured by its own section
 * {@code [adapters.<name>]}, and started with a {@link PlatformContext} that hands it what a platform may
 * use. Neither the server nor the cluster names a platform: adding one is adding a jar.
 *
 * <p>{@link #read} runs at start and at each edit of the configuration file while the bot runs (an edit that
 * does not read is refused, the running bot keeps its settings); {@link #create} runs once at start, for a
 * section whose settings are {@linkplain PlatformSettings#enabled() enabled}. One instance is found per class
 * path and serves every read and create: it keeps no state of its own.
 *
 * @param <S> the platform's settings, an immutable record
 */
public interface PlatformProvider<S extends PlatformSettings> {

    /** Its section's name under {@code adapters}: {@code irc} for {@code [adapters.irc]}; lower case. */
    String name();

    /** The keys its section may hold; any other is an error naming the section's known keys. */
    Set<String> keys();

    /**
     * Reads its section, checked: with {@link Section}'s typed getters an error names the file and line.
     *
     * @param deployment what the platform would run in (a cluster, the server's listening host)
     * @throws ConfigException naming the setting that is wrong, or the settings that do not go together
     */
    S read(Section section, Deployment deployment);

    /**
     * Starts the platform: registers its adapters ({@link PlatformContext#adapter}), mounts its HTTP routes
     * and WebSocket endpoints, subscribes to the cluster's messages. The adapters are started by the pipeline
     * once the modules are loaded, and stopped by it at shutdown.
     *
     * @throws Exception when it cannot start (the bot then does not start, and says why)
     */
    Platform create(S settings, PlatformContext context) throws Exception;

    /**
     * What a platform runs in, as far as reading its settings needs it.
     *
     * @param clustered    whether {@code cluster.enabled}: an event is handled by the instance that holds its chat
     * @param listenHost   the HTTP server's host ({@code server.host}); empty when no HTTP server runs
     */
    record Deployment(boolean clustered, String listenHost) {

        /** One instance, no HTTP server. */
        public static final Deployment ALONE = new Deployment(false, "");

        /** Whether an HTTP server runs, on which {@link HttpRoutes} can mount. */
        public boolean serves() {
            return !listenHost.isEmpty();
        }
    }
}
