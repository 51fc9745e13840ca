package dev.pulsebus.telegram;

import dev.pulsebus.platform.InstanceMessaging;
import dev.pulsebus.platform.InstanceMessaging.Lease;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * In a cluster, the lease that lets one instance poll a bot ({@link InstanceMessaging#lease}, named
 * {@code telegram-poll:<bot id>}): Telegram answers one {@code getUpdates} per bot at a time. The poller
 * {@linkplain #acquire waits} for it, trying every {@link #RENEW_MILLIS}; once it holds it, a virtual thread of
 * its own renews it every {@link #RENEW_MILLIS} (a third of {@link #TTL_MILLIS}), whatever the poll is doing.
 * The lease is {@linkplain #held held} until {@link #TTL_MILLIS} less {@link #MARGIN_MILLIS} after the last
 * renewal that worked was asked for, by this instance's monotonic clock: Redis counts its ttl from when it got
 * the call, later, so this instance stops polling before the lease could be another's. It is lost, and
 * {@code lost} runs (the poller is cut off), as soon as Redis says another holds it, or when that time passes
 * while Redis does not answer. Thread-safe.
 */
final class PollLease {

    private static final Logger LOG = LoggerFactory.getLogger(PollLease.class);
    /** The lease's time to live: how long after its holder died (kill -9) another instance may take it. */
    static final long TTL_MILLIS = 6_000;
    /** How often the holder renews it, and a waiting instance tries to take it. */
    static final long RENEW_MILLIS = TTL_MILLIS / 3;
    /** How long before the lease could expire the holder stops: room for a Redis call's timeout and a cut poll. */
    static final long MARGIN_MILLIS = 1_500;

    private final InstanceMessaging cluster;
    final String name;
    private final Runnable lost;
    /** Until when ({@link System#nanoTime}) this instance holds it by its own clock. */
    private volatile long until;
    private volatile boolean held;
    private volatile @Nullable Thread renewer;

    /** The lease of bot {@code botId}; {@code lost} runs on the renewer's thread when this instance loses it. */
    PollLease(InstanceMessaging cluster, String botId, Runnable lost) {
        this.cluster = cluster;
        this.name = "telegram-poll:" + botId;
        this.lost = lost;
    }

    /** This instance's name in the cluster. */
    String instance() {
        return cluster.instance();
    }

    /** Waits until this instance holds the lease, then renews it until it is lost or {@link #release}d. */
    void acquire() throws InterruptedException {
        for (boolean told = false; ; ) {
            long asked = System.nanoTime();
            Lease r = cluster.lease(name, TTL_MILLIS);
            if (r == Lease.HELD) {
                until = asked + TimeUnit.MILLISECONDS.toNanos(TTL_MILLIS - MARGIN_MILLIS);
                held = true;
                renewer = Thread.ofVirtual().name("pulsebus-telegram-lease-" + name).start(this::renew);
                return;
            }
            if (!told) {
                LOG.info("Telegram: {} {}; this instance ({}) polls when it is free (lease {} ms)", name,
                        r == Lease.ELSEWHERE ? "is held by another instance" : "cannot be taken while Redis does "
                        + "not answer", cluster.instance(), TTL_MILLIS);
                told = true;
            }
            Thread.sleep(RENEW_MILLIS);
        }
    }

    /** Whether this instance holds the lease now, by its own clock: it may poll. */
    boolean held() {
        return held && until - System.nanoTime() > 0;
    }

    private void renew() {
        boolean unanswered = false;
        try {
            while (held) {
                long left = TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime());
                synchronized (this) { // woken by release, never interrupted: Lettuce takes that for an outage
                    if (held && left > 0) {
                        wait(Math.min(RENEW_MILLIS, left));
                    }
                }
                if (!held) {
                    return;
                }
                long asked = System.nanoTime();
                Lease r = cluster.lease(name, TTL_MILLIS);
                if (r == Lease.HELD) {
                    until = asked + TimeUnit.MILLISECONDS.toNanos(TTL_MILLIS - MARGIN_MILLIS);
                    if (unanswered) {
                        LOG.info("Telegram: {} renewed again; this instance ({}) goes on polling", name,
                                cluster.instance());
                        unanswered = false;
                    }
                } else if (r == Lease.ELSEWHERE) {
                    lose("another instance holds it");
                    return;
                } else if (!held()) {
                    lose("Redis did not answer before it could expire");
                    return;
                } else if (!unanswered) {
                    LOG.warn("Telegram: {} cannot be renewed (Redis does not answer); this instance ({}) polls at "
                            + "most {} ms more unless Redis answers", name, cluster.instance(),
                            TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()));
                    unanswered = true;
                }
            }
        } catch (InterruptedException e) {
            held = false; // not expected: nothing interrupts it
        }
    }

    private void lose(String why) {
        held = false;
        LOG.warn("Telegram: {} lost ({}); this instance ({}) stops polling", name, why, cluster.instance());
        lost.run();
    }

    /** Stops renewing and gives the lease up when this instance holds it, so another polls at once. */
    void release() throws InterruptedException {
        boolean was = held;
        synchronized (this) {
            held = false;
            notifyAll();
        }
        Thread r = renewer;
        if (r != null) {
            r.join(); // its renewal under way would take the lease again after ours was given up
        }
        if (was) {
            cluster.release(name);
        }
    }
}
