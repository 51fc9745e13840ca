package dev.pulsebus.bench.harness;

/** The progress lines a suite prints while it runs ({@code # what}), so a long run shows where it is. */
public final class Progress {

    private Progress() {
    }

    public static void print(String what) {
        System.out.println("# " + what);
    }
}
