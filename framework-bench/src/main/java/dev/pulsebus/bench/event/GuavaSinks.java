package dev.pulsebus.bench.event;

import com.google.common.eventbus.AllowConcurrentEvents;
import com.google.common.eventbus.Subscribe;
import java.util.function.Consumer;

/**
 * Guava subscribers doing the same work as the PulseBus handlers. {@link AllowConcurrentEvents} spares
 * them Guava's per-subscriber lock, its fastest configuration.
 */
final class GuavaSinks {

    private GuavaSinks() {
    }

    static final class Sink {
        private final Consumer<Object> work;

        Sink(Consumer<Object> work) {
            this.work = work;
        }

        @Subscribe
        @AllowConcurrentEvents
        public void on(BenchEvent event) {
            work.accept(event);
        }
    }

    static final class Counting {
        private final Completions done;

        Counting(Completions done) {
            this.done = done;
        }

        @Subscribe
        @AllowConcurrentEvents
        public void on(BenchEvent event) {
            done.one();
        }
    }
}
