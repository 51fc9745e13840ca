package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import dev.pulsebus.testing.LogCapture;
import dev.pulsebus.testing.ModuleJars;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** Which jars of a modules folder load when several carry the same module, and setting a replaced jar aside. */
class NewestJarsTest {

    @RegisterExtension
    final LogCapture log = new LogCapture(Modules.class, Level.INFO);

    @TempDir
    Path dir;

    private static String module(String pkg, String cls, String name, String version) {
        return """
                package %s;

                public final class %s implements dev.pulsebus.module.BotModule {
                    public String name() { return "%s"; }
                    public String version() { return "%s"; }
                    public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
                        System.setProperty("newest-jars-test.loaded", "%s %s");
                    }
                }
                """.formatted(pkg, cls, name, version, name, version);
    }

    /** {@code modules/<file>}: a jar carrying one module per name and version given, alternating. */
    private Path jar(String file, String... namesAndVersions) throws IOException {
        String pkg = "m" + Integer.toHexString(file.hashCode());
        List<String> classes = new java.util.ArrayList<>();
        List<String> sources = new java.util.ArrayList<>();
        for (int i = 0; i < namesAndVersions.length; i += 2) {
            String cls = "M" + i;
            classes.add(cls);
            sources.add(cls + ".java");
            sources.add(module(pkg, cls, namesAndVersions[i], namesAndVersions[i + 1]));
        }
        Path built = ModuleJars.build(Files.createDirectories(dir.resolve("build")), file.replace(".jar", ""), pkg,
                classes, sources.toArray(String[]::new));
        return Files.copy(built, Files.createDirectories(dir.resolve("modules")).resolve(file));
    }

    @Test
    void theHighestVersionLoadsAndTheOthersAreLoggedOnceAsSuperseded() throws Exception {
        Path v9 = jar("dice-1.9.jar", "dice", "1.9");
        Path v10 = jar("dice-1.10.jar", "dice", "1.10");
        Path snapshot = jar("dice-1.10-SNAPSHOT.jar", "dice", "1.10-SNAPSHOT");
        Path coin = jar("coin.jar", "coin", "0.1");
        System.clearProperty("newest-jars-test.loaded");

        assertThat(Modules.newestJars(dir.resolve("modules"), true)).containsExactly(coin, v10);

        assertThat(System.getProperty("newest-jars-test.loaded")).as("reading a jar runs no onLoad").isNull();
        assertThat(log.lines()).hasSize(2);
        assertThat(log.lines()).filteredOn(l -> l.contains("dice-1.9.jar")).singleElement().asString()
                .contains("superseded", "dice 1.10 in dice-1.10.jar");
        assertThat(log.lines()).filteredOn(l -> l.contains(snapshot.getFileName().toString())).singleElement()
                .asString().contains("superseded");
        assertThat(Modules.newestJars(dir.resolve("modules"), false)).containsExactly(coin, v10);
        assertThat(log.lines()).as("quiet when asked").hasSize(2);
        assertThat(v9).exists();
    }

    @Test
    void aJarWithSeveralModulesIsSupersededOnlyWhenEachOfThemIsNewerElsewhere() throws Exception {
        Path bundle = jar("bundle.jar", "dice", "1.0", "coin", "1.0");
        Path dice = jar("dice-2.0.jar", "dice", "2.0");
        Path modules = dir.resolve("modules");
        assertThat(Modules.newestJars(modules, false)).as("coin 1.0 is only in the bundle").containsExactly(bundle, dice);

        Path coin = jar("coin-1.1.jar", "coin", "1.1");
        assertThat(Modules.newestJars(modules, true)).containsExactly(coin, dice);
        assertThat(log.lines()).singleElement().asString()
                .contains("bundle.jar is superseded", "dice 2.0 in dice-2.0.jar", "coin 1.1 in coin-1.1.jar");
    }

    @Test
    void atEqualVersionsTheNewerFileIsTakenAndThatIsLogged() throws Exception {
        Path older = jar("b-dice.jar", "dice", "1.0");
        Path newer = jar("a-dice.jar", "dice", "1.0.0");
        Files.setLastModifiedTime(older, FileTime.fromMillis(1_000_000_000_000L));
        Files.setLastModifiedTime(newer, FileTime.fromMillis(1_700_000_000_000L));
        assertThat(Modules.newestJars(dir.resolve("modules"), true)).containsExactly(newer);
        assertThat(log.lines()).anySatisfy(l -> assertThat(l).contains("is in both", "a-dice.jar is taken"));

        Files.setLastModifiedTime(newer, FileTime.fromMillis(1_000_000_000_000L));
        assertThat(Modules.newestJars(dir.resolve("modules"), false)).as("then the later name").containsExactly(older);
    }

    @Test
    void aJarWhoseModulesCannotBeReadIsKeptSoThatItsLoadSaysWhy() throws Exception {
        Path dice = jar("dice.jar", "dice", "1.0");
        Path junk = Files.writeString(dir.resolve("modules").resolve("junk.jar"), "not a zip");
        assertThat(Modules.newestJars(dir.resolve("modules"), true)).containsExactly(dice, junk);
        assertThat(log.lines()).isEmpty();
    }

    @Test
    void aReplacedJarIsMovedAsideWithASuffixWhenItsNameIsTakenAndIsNotListedAgain() throws Exception {
        Path modules = Files.createDirectories(dir.resolve("modules"));
        Path first = Files.writeString(modules.resolve("dice-1.0.jar"), "first");
        Path moved = Modules.setAside(first);
        assertThat(moved).isEqualTo(modules.resolve(".replaced").resolve("dice-1.0.jar")).hasContent("first");
        assertThat(first).doesNotExist();

        Path second = Files.writeString(modules.resolve("dice-1.0.jar"), "second");
        assertThat(Modules.setAside(second)).isEqualTo(modules.resolve(".replaced").resolve("dice-1.0~2.jar"))
                .hasContent("second");
        assertThat(moved).as("nothing is overwritten").hasContent("first");
        Files.writeString(modules.resolve("dice-1.1.jar"), "x");
        assertThat(Modules.jars(modules)).containsExactly(modules.resolve("dice-1.1.jar"));
    }

    @Test
    void aJarThatCannotBeMovedStaysAndSaysWhy() throws Exception {
        Path modules = Files.createDirectories(dir.resolve("modules"));
        Files.writeString(modules.resolve(".replaced"), "a file where the folder would go");
        Path jar = Files.writeString(modules.resolve("dice-1.0.jar"), "x");
        assertThatThrownBy(() -> Modules.setAside(jar)).isInstanceOf(IOException.class);
        assertThat(jar).exists();
    }
}
