package dev.pulsebus.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The SQLite native library extracted once into the data directory and loaded from there. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SqliteNativeTest {

    @TempDir
    Path dir;

    private static String here() {
        return SqliteNative.folder(System.getProperty("os.name"), System.getProperty("os.arch"));
    }

    @Test
    void onlyPlatformsWhoseLibraryWeCanNameAreTakenOver() {
        assertThat(SqliteNative.folder("Windows 11", "amd64")).isNull();
        assertThat(SqliteNative.folder("Mac OS X", "aarch64")).isNull();
        assertThat(SqliteNative.folder("Linux", "ppc64le")).isNull();
        if (!Files.exists(Path.of("/etc/alpine-release"))) {
            assertThat(SqliteNative.folder("Linux", "amd64")).isEqualTo("org/sqlite/native/Linux/x86_64/");
            assertThat(SqliteNative.folder("Linux", "aarch64")).isEqualTo("org/sqlite/native/Linux/aarch64/");
        }
        assertThat(SqliteNative.cachedCopy(dir, null)).isNull();
        assertThat(SqliteNative.cachedCopy(dir, "org/sqlite/native/Nowhere/")).isNull();
    }

    @Test
    void theLibraryIsExtractedOnceAndAgainWhenDamaged() throws Exception {
        String folder = here();
        assumeTrue(folder != null, "not a platform we extract for");
        Path copy = SqliteNative.cachedCopy(dir, folder);
        assertThat(copy).isNotNull();
        assertThat(copy.getParent()).isEqualTo(dir.resolve(".native").toAbsolutePath());
        assertThat(copy.getFileName().toString()).matches("sqlite-[0-9a-f]+");
        Path lib = copy.resolve("libsqlitejdbc.so");
        assertThat(Files.size(lib)).isGreaterThan(100_000);
        try (var files = Files.list(copy)) {
            assertThat(files.toList()).containsExactly(lib); // no temporary file left behind
        }

        FileTime stamp = FileTime.fromMillis(1_000_000_000_000L);
        Files.setLastModifiedTime(lib, stamp);
        assertThat(SqliteNative.cachedCopy(dir, folder)).isEqualTo(copy);
        assertThat(Files.getLastModifiedTime(lib)).isEqualTo(stamp); // kept, not written again

        byte[] good = Files.readAllBytes(lib);
        Files.write(lib, new byte[] {1, 2, 3}); // damaged copies (a crash mid-write cannot make one: the move is atomic)
        assertThat(SqliteNative.cachedCopy(dir, folder)).isEqualTo(copy);
        assertThat(Files.readAllBytes(lib)).isEqualTo(good);
        Files.write(lib, new byte[good.length]); // the right size, the wrong bytes: the CRC tells
        assertThat(SqliteNative.cachedCopy(dir, folder)).isEqualTo(copy);
        assertThat(Files.readAllBytes(lib)).isEqualTo(good);
    }

    @Test
    void aServerProcessLoadsTheCopyInItsDataDirectoryAndNothingFromTmp() throws Exception {
        assumeTrue(here() != null, "not a platform we extract for");
        Path data = dir.resolve("data");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Opener.class.getName(), data.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(child.waitFor()).isZero();
        List<String> mapped = out.lines().filter(l -> l.contains("sqlitejdbc")).toList();
        assertThat(mapped).isNotEmpty()
                .allSatisfy(l -> assertThat(l).contains(data.resolve(".native").toAbsolutePath().toString()));
    }

    /** Opens storage in a fresh JVM and prints the native libraries it mapped. */
    public static final class Opener {
        public static void main(String[] args) throws Exception {
            try (Storage storage = Storage.builder().dataDir(Path.of(args[0])).open()) {
                storage.kv().namespace("m").set("k", "v");
                Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(".so"))
                        .forEach(System.out::println);
            }
        }
    }
}
