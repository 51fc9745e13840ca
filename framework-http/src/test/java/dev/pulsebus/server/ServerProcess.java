package dev.pulsebus.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The server as a process of its own, started by its main class on this test's class path. */
final class ServerProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("is listening on (http://\\S+)");

    final Process process;
    /** Where it said it listens; null when it exited or closed its output first. */
    final URI url;
    private final BufferedReader out;

    /** Starts it with {@code args} and waits until it says where it listens; stderr goes to {@code stderr}. */
    ServerProcess(ProcessBuilder.Redirect stderr, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), ServerMain.class.getName()));
        command.addAll(List.of(args));
        process = new ProcessBuilder(command).redirectError(stderr).start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        URI found = null;
        for (String line; found == null && (line = out.readLine()) != null; ) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
                found = URI.create(m.group(1));
            }
        }
        url = found;
    }

    @Override
    public void close() throws IOException {
        process.destroyForcibly();
        out.close();
    }
}
