package dev.pulsebus.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What this build is: its version and the commit it was built from (written into {@code build.properties}
 * by the build), for {@code --version}, {@code /health} and {@code pulsebus_build_info}.
 */
record BuildInfo(String version, String commit) {

    /** This build's, read once. */
    static final BuildInfo CURRENT = read();

    private static BuildInfo read() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // a jar without it: say so below
        }
        String version = clean(p.getProperty("version"), "0.1.0-SNAPSHOT");
        String commit = clean(p.getProperty("commit"), "unknown");
        if (!commit.equals("unknown") && "true".equals(p.getProperty("dirty"))) {
            commit += "-dirty";
        }
        return new BuildInfo(version, commit);
    }

    /** {@code value}, or {@code otherwise} when missing or left unfiltered ({@code ${...}}). */
    private static String clean(String value, String otherwise) {
        return value == null || value.isBlank() || value.startsWith("${") ? otherwise : value.trim();
    }

    /** The one line {@code --version} prints. */
    String line() {
        return "PulseBus " + version + " (commit " + commit + ") on JDK " + Runtime.version();
    }
}
