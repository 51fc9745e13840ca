package dev.pulsebus.onebot;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where inbound events wait for the pipeline: {@link #LANES} virtual threads, each with a queue of at most
 * {@code capacity} tasks, a task's lane chosen by its key (a chat), so one chat's events are handled in the
 * order they came and never on a Netty I/O thread. {@link #offer} never waits: a full lane refuses (the
 * caller counts it). Thread-safe.
 */
final class Lanes {

    static final int LANES = 16;
    private static final Logger LOG = LoggerFactory.getLogger(Lanes.class);

    private final List<BlockingQueue<Runnable>> queues;
    private final Thread[] threads = new Thread[LANES];
    private final String name;
    private volatile boolean stopping;

    Lanes(String name, int capacity) {
        this.name = name;
        List<BlockingQueue<Runnable>> q = new ArrayList<>(LANES);
        for (int i = 0; i < LANES; i++) {
            q.add(new ArrayBlockingQueue<>(capacity));
        }
        this.queues = List.copyOf(q);
    }

    synchronized void start() {
        for (int i = 0; i < LANES; i++) {
            if (threads[i] == null) {
                BlockingQueue<Runnable> q = queues.get(i);
                threads[i] = Thread.ofVirtual().name(name).start(() -> run(q));
            }
        }
    }

    /** Queues {@code task} on the lane of {@code key}; false when that lane is full or stopping. */
    boolean offer(Object key, Runnable task) {
        return !stopping && queues.get(Math.floorMod(key.hashCode(), LANES)).offer(task);
    }

    private void run(BlockingQueue<Runnable> q) {
        while (true) {
            Runnable task;
            try {
                task = q.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (task == null) {
                if (stopping) {
                    return;
                }
                continue;
            }
            try {
                task.run();
            } catch (Throwable t) { // the pipeline counts its own failures; this is a bug of ours
                LOG.error("An inbound OneBot event failed on its lane", t);
            }
        }
    }

    /** Refuses new tasks, lets each lane finish what it holds, waiting at most {@code timeout} in all. */
    void stop(Duration timeout) throws InterruptedException {
        stopping = true;
        long deadline = System.nanoTime() + timeout.toNanos();
        for (Thread t : threads) {
            if (t != null && !t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                LOG.warn("A OneBot lane still runs a handler after {} ms; stopping anyway", timeout.toMillis());
                return;
            }
        }
    }
}
