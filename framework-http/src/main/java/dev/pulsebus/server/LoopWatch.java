package dev.pulsebus.server;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Whether the server's event loops still run their tasks: each loop stamps its slot every second from a
 * task of its own, and a loop whose stamp is older than {@link #WEDGED_NANOS} is wedged (a handler
 * blocked it). What {@code /health/live} answers on; reading it takes no lock and allocates nothing.
 */
final class LoopWatch {

    static final long TICK_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final long WEDGED_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final AtomicLongArray stamps;

    LoopWatch(EventLoopGroup loops) {
        List<EventExecutor> each = new ArrayList<>();
        loops.forEach(each::add);
        this.stamps = new AtomicLongArray(each.size());
        long now = System.nanoTime();
        for (int i = 0; i < each.size(); i++) {
            int slot = i;
            stamps.set(slot, now);
            each.get(i).scheduleAtFixedRate(() -> stamps.set(slot, System.nanoTime()), 0, TICK_NANOS,
                    TimeUnit.NANOSECONDS);
        }
    }

    /** Loops that have not run their stamp for {@link #WEDGED_NANOS}. */
    int wedged() {
        long now = System.nanoTime();
        int n = 0;
        for (int i = 0; i < stamps.length(); i++) {
            if (now - stamps.get(i) > WEDGED_NANOS) {
                n++;
            }
        }
        return n;
    }
}
