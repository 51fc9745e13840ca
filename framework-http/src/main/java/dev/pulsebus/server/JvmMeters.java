package dev.pulsebus.server;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JVM and process meters ({@code jvm_*}, {@code process_*}, {@code system_*}), bound on a thread of
 * their own once the server listens: Micrometer's binders load the JDK's management beans, some 80 ms of
 * a cold start here that readiness need not wait for. A scrape waits for them ({@link #await}), so every
 * scrape has them.
 */
final class JvmMeters implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(JvmMeters.class);

    private final MeterRegistry registry;
    private final CountDownLatch bound = new CountDownLatch(1); // counted down once bound, or closed unstarted
    private @Nullable Thread binder; // guarded by this
    private @Nullable JvmGcMetrics gc; // guarded by this; listens to GC notifications until closed
    private boolean closed; // guarded by this

    JvmMeters(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Binds them in the background; once, and not after {@link #close}. */
    synchronized void start() {
        if (binder == null && !closed) {
            binder = Thread.ofPlatform().daemon().name("pulsebus-jvm-meters").start(this::bind);
        }
    }

    private void bind() {
        try {
            new JvmMemoryMetrics().bindTo(registry);
            JvmGcMetrics gcMetrics = new JvmGcMetrics();
            gcMetrics.bindTo(registry);
            synchronized (this) {
                if (closed) { // close() gave up waiting: nothing else will remove the GC listener
                    gcMetrics.close();
                    return;
                }
                gc = gcMetrics;
            }
            new JvmThreadMetrics().bindTo(registry);
            new ClassLoaderMetrics().bindTo(registry);
            new ProcessorMetrics().bindTo(registry);
            new UptimeMetrics().bindTo(registry);
            new FileDescriptorMetrics().bindTo(registry);
        } catch (RuntimeException | LinkageError e) {
            LOG.warn("JVM and process meters are missing from /metrics: {}", e.toString());
        } finally {
            bound.countDown();
        }
    }

    /**
     * Waits (at most 10 s) until they are bound: a scrape that comes between the server's bind and
     * {@link #start} waits too. Returns at once after a {@link #close} that found them never started.
     */
    void await() {
        try {
            bound.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the GC listener, after the binding if it is still going (or, past 10 s, the binding stops it). */
    @Override
    public void close() {
        synchronized (this) {
            if (binder == null) {
                closed = true;
                bound.countDown(); // never started: no one waits for it
                return;
            }
        }
        await();
        JvmGcMetrics gcMetrics;
        synchronized (this) {
            closed = true;
            gcMetrics = gc;
            gc = null;
        }
        if (gcMetrics != null) {
            gcMetrics.close();
        }
    }
}
