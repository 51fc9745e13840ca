package dev.pulsebus.server;

import dev.pulsebus.config.ConfigException;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DateFormatSymbols;
import java.util.Calendar;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar pulsebus-server.jar [--config FILE] [--port N] [--data-dir DIR]}: starts the server,
 * prints its URL, and on SIGTERM or SIGINT shuts down gracefully and exits 0. A bad flag or config is one
 * line on stderr and exit status 2; storage that cannot open, status 1.
 */
public final class ServerMain {

    /** The message of the ConfigException that --version raises, like --help's empty one: no server starts. */
    private static final String VERSION_REQUEST = "--version";

    static final String USAGE = """
            usage: pulsebus [--config FILE] [--port N] [--data-dir DIR] [--version] [--help]
              --config FILE    the configuration (default: config/pulsebus.toml if present, else built-in defaults)
              --port N         listen on port N (0: any free port; the chosen one is printed)
              --data-dir DIR   where the SQLite database lives (default: data)
              --version        print the version, the commit it was built from and the JDK, and exit
              --help           this text
            Environment: PULSEBUS_<SECTION>_<KEY> overrides a setting, e.g. PULSEBUS_SERVER_PORT=9090.
            """;

    /** How long past its timeout a shutdown may take before the process exits without it. */
    static final long SHUTDOWN_GRACE_MILLIS = 5_000;

    private ServerMain() {
    }

    /**
     * Loads, on a second thread while the main one reads the configuration, classes the start needs
     * later on its own path: Micrometer's Prometheus registry, the JDK's calendar and date-format data
     * (SQLite's driver formats dates for the default locale), and the secure random behind HikariCP's
     * connection ids. What it has not finished when the main thread gets there, the main thread waits
     * for (class initialisation is done once, by whoever comes first). Keep it to such self-contained
     * libraries: two threads initialising classes whose static initialisers reach each other's can
     * deadlock.
     */
    private static void warmUp() {
        try {
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT).close();
            DateFormatSymbols.getInstance();
            Calendar.getInstance();
            UUID.randomUUID();
        } catch (RuntimeException | LinkageError e) {
            // only a head start: the start does the same work itself
        }
    }

    public static void main(String[] args) {
        if (System.getProperty("logback.configurationFile") == null && Files.exists(Path.of("config", "logback.xml"))) {
            System.setProperty("logback.configurationFile", "config/logback.xml"); // before the first logger
        }
        System.exit(run(args));
    }

    static int run(String[] args) {
        // The logging backend first, before a second thread runs: a logger asked for on another thread
        // while it initialises (the warm-up's Micrometer logs its choice of backend at once) is a stand-in
        // whose calls SLF4J replays afterwards, with a three-line warning on stderr at every start.
        LoggerFactory.getILoggerFactory();
        Thread.ofPlatform().daemon().name("pulsebus-warm-up").start(ServerMain::warmUp);
        Args parsed;
        try {
            parsed = Args.parse(args);
        } catch (ConfigException e) {
            if (String.valueOf(e.getMessage()).isEmpty()) {
                System.out.print(USAGE);
                return 0;
            }
            if (VERSION_REQUEST.equals(e.getMessage())) {
                System.out.println(BuildInfo.CURRENT.line());
                return 0;
            }
            System.err.println("pulsebus: " + e.getMessage());
            System.err.print(USAGE);
            return 2;
        }
        ServerConfig config;
        try {
            config = parsed.load();
        } catch (ConfigException e) { // the configuration is wrong, not the command line: no usage text
            System.err.println("pulsebus: " + e.getMessage());
            return 2;
        }
        PulseBusServer server;
        try {
            server = PulseBusServer.start(config);
        } catch (ConfigException e) {
            System.err.println("pulsebus: " + e.getMessage());
            return 2;
        } catch (Exception e) {
            System.err.println("pulsebus: cannot start: " + e.getMessage());
            LoggerFactory.getLogger(ServerMain.class).debug("start failed", e);
            return 1;
        }
        CountDownLatch signalled = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        Runnable stop = () -> {
            signalled.countDown();
            try {
                server.close(); // a second signal's close waits for the first one's
            } finally {
                stopped.countDown();
            }
        };
        try {
            Signals.onTermOrInt(stop);
        } catch (ReflectiveOperationException e) {
            System.err.println("pulsebus: cannot handle SIGTERM (" + e + "); stop the server with kill -9 only");
        }
        System.out.println("PulseBus " + PulseBusServer.VERSION + " is listening on " + server.url()
                + "  (try: curl " + server.url() + "/health)");
        System.out.flush();
        try {
            signalled.await();
            // close keeps to server.shutdown_timeout_ms; this bounds a step that does not (a module's
            // onUnload that never returns): the process exits anyway, saying so.
            if (!stopped.await(config.listen().shutdownTimeoutMs() + SHUTDOWN_GRACE_MILLIS, TimeUnit.MILLISECONDS)) {
                System.err.println("pulsebus: shutdown did not finish within server.shutdown_timeout_ms ("
                        + config.listen().shutdownTimeoutMs() + " ms) + " + SHUTDOWN_GRACE_MILLIS + " ms; exiting anyway");
                return 1;
            }
        } catch (InterruptedException e) {
            server.close();
        }
        return 0;
    }

    static ServerConfig configure(String[] args) {
        return Args.parse(args).load();
    }

    /** The command line: the configuration file (optional when not named) and the flags that override it. */
    private record Args(@Nullable Path file, boolean optional, @Nullable Integer port, @Nullable Path dataDir) {

        static Args parse(String[] args) {
            Path file = null;
            Integer port = null;
            Path dataDir = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--config" -> file = Path.of(value(args, ++i, a));
                    case "--port" -> {
                        String v = value(args, ++i, a);
                        try {
                            port = Integer.parseInt(v);
                        } catch (NumberFormatException e) {
                            throw new ConfigException("--port needs a number, got '" + v + "'");
                        }
                        if (port < 0 || port > 65535) {
                            throw new ConfigException("--port must be between 0 and 65535, got " + port);
                        }
                    }
                    case "--data-dir" -> dataDir = Path.of(value(args, ++i, a));
                    case "--help", "-h" -> throw new ConfigException("");
                    case "--version" -> throw new ConfigException(VERSION_REQUEST);
                    default -> throw new ConfigException("unknown argument '" + a + "'");
                }
            }
            boolean optional = file == null;
            if (file == null) {
                Path shipped = Path.of("config", "pulsebus.toml");
                file = Files.exists(shipped) ? shipped : null;
            }
            return new Args(file, optional, port, dataDir);
        }

        ServerConfig load() {
            return ServerConfig.load(file, optional, System.getenv()).with(port, dataDir);
        }
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new ConfigException(flag + " needs a value");
        }
        return args[i];
    }
}
