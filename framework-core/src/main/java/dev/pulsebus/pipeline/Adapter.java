package dev.pulsebus.pipeline;

import java.util.concurrent.CompletionStage;

/**
 * Connects one chat platform: turns its payloads into {@link dev.pulsebus.event.Event}s handed to the
 * pipeline's {@link Inbound}, and sends outbound messages. Owned by the pipeline it is registered with:
 * started by {@link MessagePipeline#start()}, stopped by {@link MessagePipeline#close()}.
 */
public interface Adapter {

    /** The platform this adapter serves; outbound messages for it come here. One adapter per platform. */
    String platform();

    /** Begins delivering events to {@code inbound} (from any thread; {@code accept} is thread-safe). */
    void start(Inbound inbound) throws Exception;

    /**
     * Sends a message. The stage completes with the platform's message id, or fails with the reason; it
     * must not throw.
     */
    CompletionStage<String> send(OutboundMessage message);

    /** Stops delivering and releases the connection. */
    default void stop() throws Exception {
    }
}
