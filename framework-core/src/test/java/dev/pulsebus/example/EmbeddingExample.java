package dev.pulsebus.example;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.bus.Propagation;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

public final class EmbeddingExample {

    record GroupMessage(long group, String user, String text) { }

    public static void main(String[] args) {
        var metrics = new SimpleMeterRegistry(); // or the PrometheusMeterRegistry you scrape
        try (EventBus bus = EventBus.builder()
                .meterRegistry(metrics)
                .deadEvents(event -> System.out.println("nobody handled: " + event))
                .build()) {

            // A guard at high priority: it runs first and may stop the dispatch.
            bus.on(GroupMessage.class).priority(100)
                    .intercept(m -> m.text().contains("spam") ? Propagation.STOP : Propagation.CONTINUE);

            // An inline handler: runs on the publishing thread, must not block.
            bus.subscribe(GroupMessage.class, m -> System.out.println(m.user() + " says " + m.text()));

            // A handler that may block: runs on a virtual thread, one message at a time per group.
            bus.on(GroupMessage.class).blocking(GroupMessage::group).subscribe(m -> {
                Thread.sleep(10); // a database write, an HTTP call...
                System.out.println("stored: " + m.text());
            });

            bus.publish(new GroupMessage(1, "ann", "hello"));
            bus.publish(new GroupMessage(1, "bob", "buy spam now"));
            bus.publish("a string no one subscribed to");
        } // close() waits for the blocking handlers to finish
    }
}
