package dev.pulsebus.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/** This machine's name, for an instance's default name and the server's Host check. */
public final class HostName {

    private HostName() {
    }

    /**
     * The machine's name as its kernel knows it, read on Linux without a name lookup:
     * {@code InetAddress.getLocalHost()} also resolves the name to an address, about 20 ms of a cold start
     * here and seconds where the resolver is slow. Elsewhere, or when that file cannot be read, the JDK's
     * answer is used.
     */
    public static String get() {
        try {
            String name = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!name.isEmpty()) {
                return name;
            }
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or no /proc: ask the JDK
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.net.UnknownHostException e) {
            return "localhost";
        }
    }
}
