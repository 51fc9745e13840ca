package dev.pulsebus.bench;

public final class BenchMain {
    public static void main(String[] args) {
        System.out.println("bench " + Runtime.version());
    }
}
