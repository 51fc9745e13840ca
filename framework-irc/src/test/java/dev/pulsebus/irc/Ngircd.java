package dev.pulsebus.irc;

import dev.pulsebus.testing.Required;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A real ngIRCd (Debian's {@code ngircd}) for a test class: its own configuration in a temporary directory,
 * free ports, run in the foreground ({@code ngircd -n -f}) and stopped after. Absent, the test is skipped saying
 * why, or fails when {@code -Dpulsebus.test.require} names {@code ircd}. As root it drops to nobody
 * ({@code ServerUID}/{@code ServerGID}), as ngIRCd wants.
 */
final class Ngircd implements AutoCloseable {

    static final Path BINARY = Path.of(System.getProperty("pulsebus.test.ngircd", "/usr/sbin/ngircd"));

    private final Path dir;
    private final Path conf;
    final int port;
    final int tlsPort;
    /** The server's certificate (PEM), when it serves TLS. */
    final @Nullable Path cert;
    private @Nullable Process process;

    /** Skips (or fails) the calling test unless ngIRCd is installed. */
    static void require(String who) {
        Required.service("ircd", Files.isExecutable(BINARY) ? null
                : who + ": no ngIRCd at " + BINARY + " (Debian's ngircd package)");
    }

    private Ngircd(Path dir, boolean tls) throws Exception {
        this.dir = dir;
        this.port = freePort();
        this.tlsPort = tls ? freePort() : 0;
        this.cert = tls ? dir.resolve("cert.pem") : null;
        Path include = Files.createDirectories(dir.resolve("conf.d"));
        boolean root = "root".equals(System.getProperty("user.name"));
        StringBuilder c = new StringBuilder();
        c.append("[Global]\nName = irc.test\nInfo = PulseBus test server\nListen = 127.0.0.1\n")
                .append("Ports = ").append(port).append('\n')
                .append("AdminInfo1 = test\nAdminInfo2 = test\nAdminEMail = test@localhost\n");
        if (root) {
            c.append("ServerUID = 65534\nServerGID = 65534\n");
        }
        c.append("[Limits]\nMaxConnectionsIP = 0\nPingTimeout = 120\nPongTimeout = 20\n")
                .append("[Options]\nPAM = no\nIdent = no\nDNS = no\nIncludeDir = ").append(include).append('\n');
        if (tls) {
            boolean openssl = java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":", -1))
                    .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, "openssl")));
            Required.service("ircd", openssl ? null : "IRC TLS test: no openssl on the PATH to make the server's"
                    + " certificate");
            Path key = dir.resolve("key.pem");
            Path dh = dir.resolve("dh.pem");
            run(List.of("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                    "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
                    "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"));
            run(List.of("openssl", "genpkey", "-genparam", "-algorithm", "DH", "-pkeyopt", "group:ffdhe2048",
                    "-out", dh.toString()));
            for (Path p : List.of(key, cert, dh)) {
                Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-r--r--"));
            }
            c.append("[SSL]\nCertFile = ").append(cert).append("\nKeyFile = ").append(key)
                    .append("\nDHFile = ").append(dh).append("\nPorts = ").append(tlsPort).append('\n');
        }
        this.conf = dir.resolve("ngircd.conf");
        Files.writeString(conf, c);
        start();
    }

    /** A server with its configuration in {@code dir}, TLS too when {@code tls}; running once this returns. */
    static Ngircd start(Path dir, boolean tls) throws Exception {
        require("IRC tests");
        return new Ngircd(dir, tls);
    }

    /** Starts it (again, on the same ports), and waits until it listens. */
    void start() throws Exception {
        Path log = dir.resolve("ngircd.log");
        Process p = new ProcessBuilder(BINARY.toString(), "-n", "-f", conf.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        process = p;
        long until = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (true) {
            if (!p.isAlive()) {
                throw new IllegalStateException("ngIRCd exited " + p.exitValue() + ":\n" + Files.readString(log));
            }
            if (listening(port) && (tlsPort == 0 || listening(tlsPort))) {
                return;
            }
            if (System.nanoTime() > until) {
                throw new IllegalStateException("ngIRCd does not listen after 15 s:\n" + Files.readString(log));
            }
            Thread.sleep(20);
        }
    }

    /** Kills it (SIGKILL): every connection drops at once. */
    void kill() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        Process p = process;
        if (p != null) {
            p.destroy();
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
            process = null;
        }
    }

    private static boolean listening(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
        }
    }
}
