package dev.pulsebus.bench.harness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.jspecify.annotations.Nullable;

/**
 * A server launched in a process of its own for the memory rows, as a user launches it: the command is
 * started, its URL read from the line it prints once it listens ({@link ServerFixture#LISTENING}), and
 * from then on its JVM is read from {@code /proc}: RSS, peak RSS, CPU time, the options it was given.
 * Where the command is a script that runs {@code java} as its child instead of exec'ing it (a training
 * run of {@code ./pulsebus}), the JVM is that child. Closing stops the command with SIGTERM (the script
 * passes it on) and waits for it to exit.
 */
public final class Launched implements AutoCloseable {

    /** A megabyte as the memory rows count it (and {@code ps}, {@code top}): 2^20 bytes. */
    public static final double MB = 1 << 20;

    /** How long a launch may take to print its URL, and to exit after SIGTERM. */
    private static final Duration PATIENCE = Duration.ofMinutes(2);

    private final Process process;
    private final URI url;
    private final long jvm;

    private Launched(Process process, URI url, long jvm) {
        this.process = process;
        this.url = url;
        this.jvm = jvm;
    }

    /**
     * Starts {@code command} in {@code workDir} (null: here), its stderr into {@code errors}, and returns
     * once it printed the line with its URL; throws, the process stopped, if it exits or takes longer than
     * two minutes first.
     */
    public static Launched start(List<String> command, @Nullable Path workDir, Path errors) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(errors.toFile());
        if (workDir != null) {
            pb.directory(workDir.toFile());
        }
        Process p = pb.start();
        Thread watchdog = Thread.ofVirtual().start(() -> { // a start that hangs would block readLine
            try {
                if (!p.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException ignored) {
                // it printed its URL in time
            }
        });
        boolean started = false;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            URI url = null;
            for (String line; url == null && (line = out.readLine()) != null; ) {
                Matcher m = ServerFixture.LISTENING.matcher(line);
                if (m.find()) {
                    url = URI.create(m.group(1));
                }
            }
            if (url == null) {
                throw new IOException("it did not start: " + String.join(" ", command) + " (its errors: " + errors + ")");
            }
            Thread.ofVirtual().start(() -> { // keeps a chatty child from blocking on a full pipe
                try {
                    out.transferTo(Writer.nullWriter());
                } catch (IOException ignored) {
                    // the process went away
                }
            });
            Launched launched = new Launched(p, url, jvmOf(p.toHandle()));
            started = true;
            return launched;
        } finally {
            watchdog.interrupt();
            if (!started) {
                p.destroyForcibly();
            }
        }
    }

    /**
     * The checkout's {@code ./pulsebus} launcher (the benchmark runs in {@code framework-bench/}, or from the
     * checkout), or null when there is none.
     */
    public static @Nullable Path pulsebus() {
        for (Path p : List.of(Path.of("..", "pulsebus"), Path.of("pulsebus"))) {
            if (Files.isExecutable(p) && Files.isDirectory(p.resolveSibling("framework-http"))) {
                return p.toAbsolutePath().normalize();
            }
        }
        return null;
    }

    /**
     * A config for a server as a bot author writes one: the OneBot v11 adapter on in {@code reverse-ws} mode,
     * on a free port, its data under {@code dir}; everything else left at its default.
     */
    public static Path oneBotConfig(Path dir) throws IOException {
        Files.createDirectories(dir);
        return Files.writeString(dir.resolve("pulsebus.toml"), """
                [server]
                port = 0

                [adapters.onebot11]
                enabled = true
                mode = "reverse-ws"

                [storage]
                data_dir = "%s"
                """.formatted(dir.resolve("data").toString().replace("\\", "/")));
    }

    /** {@code ./pulsebus --config config}: the server as a user starts it, in the launcher's folder. */
    public static Launched pulsebus(Path launcher, Path config, Path errors) throws IOException {
        return start(List.of(launcher.toString(), "--config", config.toString()), launcher.getParent(), errors);
    }

    /** The process itself when it is {@code java}, else its first {@code java} descendant (a script's child). */
    private static long jvmOf(ProcessHandle launched) throws IOException {
        if (isJava(launched)) {
            return launched.pid();
        }
        return launched.descendants().filter(Launched::isJava).findFirst()
                .orElseThrow(() -> new IOException("no java process under " + launched.pid())).pid();
    }

    private static boolean isJava(ProcessHandle h) {
        Optional<String> command = h.info().command();
        return command.isPresent() && Path.of(command.get()).getFileName().toString().equals("java");
    }

    /** Returns once {@code GET /health} answers 200 (how the startup rows tell a server is ready). */
    public Launched awaitHealth() throws IOException {
        try (java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient()) {
            int status = http.send(java.net.http.HttpRequest.newBuilder(url.resolve("/health"))
                    .timeout(java.time.Duration.ofSeconds(30)).build(),
                    java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
            if (status != 200) {
                throw new IOException("/health answered " + status);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for /health", e);
        }
        return this;
    }

    /** What it printed as the URL it listens on. */
    public URI url() {
        return url;
    }

    /** The JVM's process id (the launched process, or the java it started). */
    public long pid() {
        return jvm;
    }

    /** The JVM's memory now, from {@code /proc/<pid>/status}. */
    public Memory memory() throws IOException {
        return Memory.of(jvm);
    }

    /** The JVM's CPU time so far (user and system, all threads), in nanoseconds; -1 where the OS does not say. */
    public long cpuNanos() {
        return ProcessHandle.of(jvm).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);
    }

    /** The JVM's command line ({@code /proc/<pid>/cmdline}): the java it runs first. */
    public List<String> commandLine() throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(jvm), "cmdline"));
        List<String> args = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == 0) {
                args.add(new String(raw, from, i - from, StandardCharsets.UTF_8));
                from = i + 1;
            }
        }
        return args;
    }

    /**
     * The options the JVM was given (between {@code java} and {@code -jar}, {@code -cp} or the main class),
     * without those naming a startup cache, which belongs to the jar it was made for: what another program
     * is given to run as this one was sized.
     */
    public List<String> jvmOptions() throws IOException {
        List<String> all = commandLine();
        List<String> options = new ArrayList<>();
        for (String a : all.subList(1, all.size())) {
            if (a.equals("-jar") || a.equals("-cp") || a.equals("-classpath") || a.equals("--class-path")
                    || !a.startsWith("-")) {
                break;
            }
            if (!a.startsWith("-XX:AOTCache") && !a.startsWith("-XX:AOTMode") && !a.startsWith("-XX:SharedArchiveFile")
                    && !a.equals("-XX:+AutoCreateSharedArchive") && !a.startsWith("-XX:ArchiveClassesAtExit")
                    && !a.equals("-XX:-AOTReplayTraining") && !a.startsWith("-Xlog:aot") && !a.startsWith("-Xlog:cds")) {
                options.add(a);
            }
        }
        return options;
    }

    /** Whether the JVM started from a startup cache (an AOT cache or a CDS archive named on its command line). */
    public boolean fromCache() throws IOException {
        return commandLine().stream().anyMatch(a -> a.startsWith("-XX:AOTCache=") || a.startsWith("-XX:SharedArchiveFile="));
    }

    /** Stops it with SIGTERM and waits for it to exit (by force after two minutes). */
    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            ProcessHandle.of(jvm).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /**
     * A process's memory as {@code /proc/<pid>/status} gives it, in bytes: resident now ({@code VmRSS}), its
     * peak ({@code VmHWM}), and the resident anonymous memory (heap, stacks, malloc) and file pages (the
     * JVM's own library, a mapped cache, jars) it is made of.
     */
    public record Memory(long rss, long peak, long anon, long file) {

        public static Memory of(long pid) throws IOException {
            long rss = -1;
            long peak = -1;
            long anon = -1;
            long file = -1;
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kb(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = kb(line);
                } else if (line.startsWith("RssAnon:")) {
                    anon = kb(line);
                } else if (line.startsWith("RssFile:")) {
                    file = kb(line);
                }
            }
            return new Memory(rss, peak, anon, file);
        }

        private static long kb(String line) {
            return Long.parseLong(line.substring(line.indexOf(':') + 1).replace("kB", "").trim()) * 1024;
        }

        /** "84.2 MB (anon 61.0, file 23.2)". */
        public String describe() {
            return String.format(Locale.ROOT, "%.1f MB (anon %.1f, file %.1f)", rss / MB, anon / MB, file / MB);
        }
    }
}
