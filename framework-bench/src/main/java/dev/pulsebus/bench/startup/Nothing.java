package dev.pulsebus.bench.startup;

/** startup.jvm_floor: a JVM that starts and exits, printing nothing. */
public final class Nothing {

    private Nothing() {
    }

    public static void main(String[] args) {
        // nothing: the floor every startup row stands on
    }
}
