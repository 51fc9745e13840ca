package dev.pulsebus.platform;

import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.Adapter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Optional;

/** What a platform may use, handed to {@link PlatformProvider#create}. */
public interface PlatformContext {

    /** This instance's name ({@code bot.instance}, in a cluster its cluster name). */
    String instance();

    /**
     * Registers {@code adapter} with the pipeline: started once the modules are loaded, stopped at shutdown; its
     * {@link Adapter#platform()} names the platform of the events it hands in and of the messages sent to it. In
     * a cluster its events go through the broker to the instance that holds their chat.
     */
    void adapter(Adapter adapter);

    /** The bot's key-value store, in a namespace of the platform's own (its provider's name). */
    Kv kv();

    /** Where its meters go ({@code pulsebus_*}); remove them when its adapters stop. */
    MeterRegistry meters();

    /** The clock events are stamped with. */
    Clock clock();

    /**
     * The HTTP server's routes, to mount endpoints on: a platform whose peer posts to it or opens a WebSocket to
     * it. Without an HTTP server ({@link HttpRoutes#available()} false) mounting fails, naming the setting.
     */
    HttpRoutes http();

    /** The other instances of the cluster, when {@code cluster.enabled}; empty for one instance. */
    Optional<InstanceMessaging> cluster();
}
