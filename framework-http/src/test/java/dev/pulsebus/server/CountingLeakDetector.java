package dev.pulsebus.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Netty's leak detector for this module's tests (set by surefire: {@code io.netty.customResourceLeakDetector},
 * level paranoid), counting the leaks it reports so that a test can fail on them instead of only logging.
 */
public final class CountingLeakDetector<T> extends ResourceLeakDetector<T> {

    private static final AtomicInteger LEAKS = new AtomicInteger();

    public CountingLeakDetector(Class<?> resourceType, int samplingInterval) {
        super(resourceType, samplingInterval);
    }

    /** The constructor Netty looks for first (it logs an error when it is missing, then takes the other). */
    @SuppressWarnings("deprecation")
    public CountingLeakDetector(Class<?> resourceType, int samplingInterval, long maxActive) {
        super(resourceType, samplingInterval, maxActive);
    }

    /** Whether this detector is the one Netty uses (it is when the tests run under Maven). */
    static boolean installed() {
        return CountingLeakDetector.class.getName().equals(System.getProperty("io.netty.customResourceLeakDetector"));
    }

    /**
     * The leaks reported since the last call, after a collection and a few allocations: Netty reports a
     * leaked buffer once it is collected, at the next buffer it tracks.
     */
    static int takeLeaksAfterCollection() throws InterruptedException {
        for (int round = 0; round < 5; round++) {
            System.gc();
            Thread.sleep(20);
            for (int i = 0; i < 100; i++) {
                ByteBuf probe = ByteBufAllocator.DEFAULT.buffer(16);
                probe.release();
            }
        }
        return LEAKS.getAndSet(0);
    }

    @Override
    protected boolean needReport() {
        return true;
    }

    @Override
    protected void reportTracedLeak(String resourceType, String records) {
        LEAKS.incrementAndGet();
        super.reportTracedLeak(resourceType, records);
    }

    @Override
    protected void reportUntracedLeak(String resourceType) {
        LEAKS.incrementAndGet();
        super.reportUntracedLeak(resourceType);
    }
}
