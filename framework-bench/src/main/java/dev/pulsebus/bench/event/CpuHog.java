package dev.pulsebus.bench.event;

import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * A busy neighbour for the {@code _contended} rows: one platform thread per core spinning for the whole
 * trial, as another process's build would keep every core busy ({@value #HOGS_PROPERTY} sets another
 * number, e.g. {@code -Dpulsebus.jvm.args="--enable-native-access=ALL-UNNAMED -Dpulsebus.bench.hogs=1"}).
 * The benchmark's threads then get only their fair share of the CPU, and a thread that yields instead of
 * parking hands its core to a hog for a time slice. A benchmark method takes this state to have it; the
 * other rows never start it.
 */
@State(Scope.Benchmark)
public class CpuHog {

    static final String HOGS_PROPERTY = "pulsebus.bench.hogs";

    private final List<Thread> hogs = new ArrayList<>();
    private volatile boolean running;
    /** Written by the hogs so the JIT cannot remove their loops. */
    volatile long spins;

    @Setup(Level.Trial)
    public void start() {
        running = true;
        int n = Integer.getInteger(HOGS_PROPERTY, Runtime.getRuntime().availableProcessors());
        for (int i = 0; i < n; i++) {
            Thread t = Thread.ofPlatform().daemon().name("cpu-hog-" + i).start(this::spin);
            hogs.add(t);
        }
    }

    private void spin() {
        long n = 0;
        while (running) {
            n++;
            if ((n & 0xFFFF) == 0) {
                spins = n;
            }
        }
    }

    @TearDown(Level.Trial)
    public void stop() throws InterruptedException {
        running = false;
        for (Thread t : hogs) {
            t.join();
        }
        hogs.clear();
    }
}
