package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModulesTest {

    record M(String name, List<String> dependencies) implements BotModule {
        @Override
        public void onLoad(ModuleContext ctx) {
        }
    }

    private static M m(String name, String... deps) {
        return new M(name, List.of(deps));
    }

    @Test
    void dependenciesLoadFirstAndOtherwiseTheGivenOrderHolds() {
        List<BotModule> order = Modules.inLoadOrder(List.of(m("c", "b"), m("a"), m("b", "a"), m("d")));
        assertThat(order).extracting(BotModule::name).containsExactly("a", "b", "c", "d");
    }

    @Test
    void aCycleIsAnErrorNamingItsModules() {
        assertThatThrownBy(() -> Modules.inLoadOrder(List.of(m("a", "b"), m("b", "c"), m("c", "a"))))
                .isInstanceOf(ModuleException.class)
                .hasMessageContaining("cycle: a -> b -> c -> a");
    }

    @Test
    void aMissingDependencyOrADuplicateNameIsAnError() {
        assertThatThrownBy(() -> Modules.inLoadOrder(List.of(m("a", "weather"))))
                .hasMessage("module 'a' needs 'weather', which is not present");
        assertThatThrownBy(() -> Modules.inLoadOrder(List.of(m("a"), m("a"))))
                .hasMessageContaining("two modules are named 'a'");
    }

    @Test
    void aMissingFolderHasNoJarsAndAJarWithoutAModuleIsAnError(@TempDir Path dir) throws Exception {
        assertThat(Modules.jars(dir.resolve("absent"))).isEmpty();
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(dir.resolve("empty.jar")))) {
            jar.putNextEntry(new java.util.jar.JarEntry("README.txt"));
        }
        assertThat(Modules.jars(dir)).containsExactly(dir.resolve("empty.jar"));
        try (ModuleHost host = ModuleHost.builder(dev.pulsebus.bus.EventBus.create(),
                dev.pulsebus.command.CommandRouter.builder().build()).build()) {
            assertThatThrownBy(() -> host.load(dir.resolve("empty.jar")))
                    .isInstanceOf(ModuleException.class).hasMessageContaining("lists no BotModule");
        }
    }
}
