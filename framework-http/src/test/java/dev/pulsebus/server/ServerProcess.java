package dev.pulsebus.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The server as a process of its own: by its main class on this test's class path, or as a user runs it,
 * the packaged jar ({@link #fromJar}). Its standard output is kept in a file under
 * {@code target/server-logs/} (for when a test fails) while what it prints is watched for its URL.
 */
final class ServerProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("is listening on (http://\\S+)");

    final Process process;
    /** Where it said it listens; null when it exited or closed its output first. */
    final @Nullable URI url;
    final Path log;

    /** Starts the main class with {@code args}, and waits until it says where it listens. */
    ServerProcess(ProcessBuilder.Redirect stderr, String... args) throws IOException {
        this(command(List.of("-cp", System.getProperty("java.class.path"), ServerMain.class.getName()), args), stderr);
    }

    /** Starts the main class in a JVM with {@code jvmArgs} and waits until it says where it listens (url null: it did not). */
    static ServerProcess withJvmArgs(List<String> jvmArgs, String... args) throws IOException {
        List<String> launch = new ArrayList<>(jvmArgs);
        launch.addAll(List.of("-cp", System.getProperty("java.class.path"), ServerMain.class.getName()));
        return new ServerProcess(command(launch, args), null);
    }

    private ServerProcess(List<String> command, ProcessBuilder.@Nullable Redirect stderr) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        if (stderr == null) {
            pb.redirectErrorStream(true);
        } else {
            pb.redirectError(stderr);
        }
        process = pb.start();
        log = Files.createTempFile(Files.createDirectories(Path.of("target", "server-logs")), "server-", ".log");
        CompletableFuture<@Nullable URI> found = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("server-output").start(() -> copy(found));
        URI u;
        try {
            u = found.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            u = null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            u = null;
        }
        url = u;
    }

    /**
     * Starts the packaged jar ({@code pulsebus.server.jar}, set by the build) as a user does, with
     * {@code config} and {@code dataDir} (and {@code jvmArgs} before {@code -jar}), its stderr in its log;
     * returns once it listens.
     *
     * @throws IOException when it does not (what it printed is in the message)
     */
    static ServerProcess fromJar(Path config, Path dataDir, String... jvmArgs) throws IOException {
        Path jar = Path.of(System.getProperty("pulsebus.server.jar", "target/pulsebus-server.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("no server jar at " + jar.toAbsolutePath() + " (mvn verify packages it)");
        }
        List<String> launch = new ArrayList<>(List.of(jvmArgs));
        launch.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        ServerProcess p = new ServerProcess(command(launch, "--config",
                config.toString(), "--port", "0", "--data-dir", dataDir.toString()), null);
        if (p.url == null) {
            p.process.destroyForcibly();
            throw new IOException("the server did not start: " + p.output());
        }
        return p;
    }

    private static List<String> command(List<String> what, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        command.addAll(what);
        command.addAll(List.of(args));
        return command;
    }

    private void copy(CompletableFuture<@Nullable URI> found) {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             Writer w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            for (String line; (line = out.readLine()) != null; ) {
                w.write(line);
                w.write('\n');
                w.flush();
                Matcher m = LISTENING.matcher(line);
                if (!found.isDone() && m.find()) {
                    found.complete(URI.create(m.group(1)));
                }
            }
        } catch (IOException e) {
            // the process is gone
        } finally {
            found.complete(null);
        }
    }

    /** SIGKILL: no shutdown of any kind. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM; the milliseconds until it exited, or -1 when it had not after {@code waitMillis}. */
    long terminate(long waitMillis) throws InterruptedException {
        long start = System.nanoTime();
        process.destroy();
        if (!process.waitFor(waitMillis, TimeUnit.MILLISECONDS)) {
            return -1;
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    /** The process's resident set, from {@code /proc/<pid>/status}, in bytes. */
    long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS for " + process.pid());
    }

    /** What it printed so far. */
    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
