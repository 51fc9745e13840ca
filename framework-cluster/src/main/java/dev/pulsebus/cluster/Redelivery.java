package dev.pulsebus.cluster;

/**
 * Whether the event being handled on this thread is a redelivery: the broker gave it to this instance after the
 * instance that had it before died, lost its connection or let its partition go (the instances spread the
 * partitions) before acknowledging it. Its handling may have
 * started, or even finished its side effects, there: a handler with effects outside PulseBus checks this and
 * makes them idempotent. (An event whose handling had finished is recognised by the dedupe set and not handled
 * again.) Set for the handlers that run on the delivering thread (commands and inline bus handlers), not for
 * blocking handlers on virtual threads of their own.
 */
public final class Redelivery {

    private static final ThreadLocal<Boolean> CURRENT = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private Redelivery() {
    }

    /** True while a redelivered event is handled on this thread. */
    public static boolean current() {
        return CURRENT.get();
    }

    static void set(boolean redelivered) {
        if (redelivered) {
            CURRENT.set(Boolean.TRUE);
        } else {
            CURRENT.remove();
        }
    }
}
