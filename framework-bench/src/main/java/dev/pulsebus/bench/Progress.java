package dev.pulsebus.bench;

/** The progress lines a suite prints while it runs ({@code # what}), so a long run shows where it is. */
final class Progress {

    private Progress() {
    }

    static void print(String what) {
        System.out.println("# " + what);
    }
}
