package dev.pulsebus.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BenchOptionsTest {

    /** The suites' names as the benchmark has them ({@code BenchTest} checks they are these). */
    static final Set<String> SUITES = new LinkedHashSet<>(List.of("config", "event", "router", "bridge", "send",
            "storage", "module", "http", "longpoll", "overall", "adapter", "startup", "cluster"));

    @Test
    void defaultsRunEverySuiteFullyIntoTargetBench() throws Exception {
        BenchOptions o = BenchOptions.parse(new String[0], SUITES);

        assertThat(o.quick).isFalse();
        assertThat(o.suites).containsExactlyElementsOf(SUITES);
        assertThat(o.out).isEqualTo(Path.of("target", "bench"));
        assertThat(o.json).isNull();
        assertThat(o.backend).isEqualTo("sqlite");
    }

    @Test
    void readsEveryFlag() throws Exception {
        BenchOptions o = BenchOptions.parse(new String[] {"--quick", "--suite", "event", "--suite", "event",
            "--json", "base.json", "--out", "o", "--backend", "postgres"}, SUITES);

        assertThat(o.quick).isTrue();
        assertThat(o.suites).containsExactly("event");
        assertThat(o.json).isEqualTo(Path.of("base.json"));
        assertThat(o.out).isEqualTo(Path.of("o"));
        assertThat(o.backend).isEqualTo("postgres");
    }

    @Test
    void unknownSuiteNamesTheOnesThatExist() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--suite", "nosuch"}, SUITES))
                .isInstanceOf(BenchOptions.UsageException.class)
                .hasMessageContaining("unknown suite 'nosuch'").hasMessageContaining("event");
    }

    @Test
    void badFlagsAreUsageErrors() {
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--fast"}, SUITES))
                .hasMessage("unknown argument '--fast'");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--json"}, SUITES))
                .hasMessage("--json needs a value");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--backend", "oracle"}, SUITES))
                .hasMessageContaining("unknown backend 'oracle'");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--against", "no/such/server.jar"}, SUITES))
                .hasMessage("--against no/such/server.jar: no such file (a pulsebus-server.jar)");
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--report", "saved.json", "--quick"}, SUITES))
                .hasMessageContaining("--report runs nothing");
    }

    @Test
    void againstNamesAnotherBuildsJar(@TempDir Path dir) throws Exception {
        Path jar = Files.createFile(dir.resolve("pulsebus-server.jar"));
        assertThat(BenchOptions.parse(new String[] {"--against", jar.toString()}, SUITES).against).isEqualTo(jar);
        assertThat(BenchOptions.parse(new String[0], SUITES).against).isNull();
        assertThatThrownBy(() -> BenchOptions.parse(new String[] {"--against", jar.toString(), "--suite", "event"}, SUITES))
                .hasMessage("--against is for the startup suite: add --suite startup");
    }
}
