package dev.pulsebus.bench.adapter;

/**
 * The do-nothing bot ({@link InstantBot}) in a JVM of its own, the floor of {@code adapter.onebot11_rss}:
 * prints the line the benchmark reads a launched server's URL from, then serves until it is stopped.
 */
public final class InstantBotMain {

    private InstantBotMain() {
    }

    public static void main(String[] args) throws Exception {
        InstantBot bot = new InstantBot();
        System.out.println("The do-nothing bot is listening on http://127.0.0.1:" + bot.uri().getPort() + "/");
        System.out.flush();
        Thread.currentThread().join(); // until the suite stops the process
    }
}
