package dev.pulsebus.storage;

import java.io.IOException;
import java.io.InputStream;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import java.util.jar.JarFile;
import java.util.zip.CRC32;
import java.util.zip.ZipEntry;
import org.jspecify.annotations.Nullable;

/**
 * Keeps sqlite-jdbc's native library in the data directory, extracted once, instead of letting the
 * driver extract it to the temporary directory at every start. The driver's own extraction runs
 * {@code uname}, then copies, checksums and byte-compares the 1.1 MB library: about 100 ms of a server's
 * start here. We point {@code org.sqlite.lib.path} at {@code <data>/.native/sqlite-<crc>/}, named by the
 * library's CRC in the driver's jar (so a driver upgrade gets its own folder); a copy whose CRC differs
 * is replaced.
 *
 * <p>Only glibc Linux on x86_64 and aarch64 is taken this way. A guess that is wrong anyway (a musl
 * system, a data directory mounted noexec) costs nothing: the driver fails to load our copy and falls
 * back to its own extraction. A {@code org.sqlite.lib.path} set by the user is left alone. The property
 * is the JVM's: a second {@code Storage} with another data directory loads the library the first one
 * pointed at (the driver loads it once per JVM anyway).
 */
final class SqliteNative {

    static final String PATH_PROPERTY = "org.sqlite.lib.path";
    private static final String LIBRARY = "libsqlitejdbc.so";

    private SqliteNative() {
    }

    /** Sets {@code org.sqlite.lib.path} to the cached copy under {@code dataDir}, extracting it when needed. */
    static synchronized void prepare(Path dataDir) {
        if (System.getProperty(PATH_PROPERTY) != null) {
            return;
        }
        Path dir = cachedCopy(dataDir, folder(System.getProperty("os.name", ""), System.getProperty("os.arch", "")));
        if (dir != null) {
            System.setProperty(PATH_PROPERTY, dir.toString());
        }
    }

    /** The driver's resource folder for this platform, or null when we leave the choice to the driver. */
    static @Nullable String folder(String osName, String osArch) {
        if (!osName.equals("Linux") || System.getProperty("java.runtime.name", "").toLowerCase(Locale.ROOT).contains("android")
                || Files.exists(Path.of("/etc/alpine-release"))) {
            return null;
        }
        return switch (osArch) {
            case "amd64", "x86_64" -> "org/sqlite/native/Linux/x86_64/";
            case "aarch64", "arm64" -> "org/sqlite/native/Linux/aarch64/";
            default -> null;
        };
    }

    /** The folder holding the extracted library (extracted now if missing), or null when it cannot be. */
    static @Nullable Path cachedCopy(Path dataDir, @Nullable String folder) {
        if (folder == null) {
            return null;
        }
        URL url = SqliteNative.class.getClassLoader().getResource(folder + LIBRARY);
        if (url == null) {
            return null;
        }
        try {
            URLConnection connection = url.openConnection();
            if (!(connection instanceof JarURLConnection jar)) {
                return null;
            }
            jar.setUseCaches(false); // our own handle on the driver's jar, closed below
            try (JarFile file = jar.getJarFile()) {
                ZipEntry entry = jar.getJarEntry();
                if (entry == null || entry.getCrc() < 0 || entry.getSize() < 0) {
                    return null;
                }
                Path dir = dataDir.resolve(".native").resolve("sqlite-" + Long.toHexString(entry.getCrc()));
                Path lib = dir.resolve(LIBRARY);
                if (Files.isRegularFile(lib) && Files.size(lib) == entry.getSize() && crc(lib) == entry.getCrc()) {
                    return dir.toAbsolutePath();
                }
                Files.createDirectories(dir);
                Path tmp = Files.createTempFile(dir, LIBRARY, ".tmp");
                try (InputStream in = file.getInputStream(entry)) {
                    Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
                    // Atomic: a process starting beside us sees no library or a whole one, never half of it.
                    Files.move(tmp, lib, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                } finally {
                    Files.deleteIfExists(tmp);
                }
                return dir.toAbsolutePath();
            }
        } catch (IOException | RuntimeException e) {
            return null; // the driver extracts it itself, as it would without us
        }
    }

    private static long crc(Path file) throws IOException {
        CRC32 crc = new CRC32();
        crc.update(Files.readAllBytes(file));
        return crc.getValue();
    }
}
