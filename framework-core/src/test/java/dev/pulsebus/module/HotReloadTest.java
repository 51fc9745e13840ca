package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.testing.Await;
import dev.pulsebus.testing.MemoryKvStore;
import dev.pulsebus.testing.ModuleJars;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real hot reload: a module compiled here into jars (two versions), loaded from a jar in its own class
 * loader, reloaded while the bot runs, and its old class loaders collected after repeated cycles.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HotReloadTest {

    @TempDir
    Path dir;

    /** A module with a command, a subscription, a service, a timer and its own event class. */
    private Path jar(String version) throws IOException {
        return ModuleJars.build(dir, "hot-" + version, "hot", "HotModule",
                "Ping.java", "package hot; public record Ping(String v) { }",
                "HotModule.java", """
                package hot;

                import dev.pulsebus.command.Command;
                import dev.pulsebus.module.BotModule;
                import dev.pulsebus.module.ModuleContext;
                import java.time.Duration;
                import java.util.function.Supplier;

                public final class HotModule implements BotModule {
                    public String name() { return "hot"; }
                    public String version() { return "%s"; }
                    public void onLoad(ModuleContext ctx) {
                        ctx.commands().register(Command.named("hot").handler(call -> call.reply("%s")));
                        ctx.bus().subscribe(Ping.class, p -> { });
                        ctx.bus().publish(new Ping("%s"));
                        ctx.provide(Supplier.class, (Supplier<String>) () -> "%s");
                        ctx.every(Duration.ofMillis(20), () -> { });
                    }
                }
                """.formatted(version, version, version, version));
    }

    @Test
    @SuppressWarnings("rawtypes") // a service of the raw Supplier type, as a module would ask
    void reloadSwapsTheVersionWhileRunningAndOldClassLoadersAreCollected() throws Exception {
        Path v1 = jar("v1");
        Path v2 = jar("v2");
        EventBus bus = EventBus.create();
        CommandRouter router = CommandRouter.builder().build();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        try (ModuleHost host = ModuleHost.builder(bus, router).build()) {
            host.load(v1);
            Service<Supplier> hot = host.services.handle("test", Supplier.class);
            assertThat(hot.get().get()).isEqualTo("v1");
            loaders.add(new WeakReference<>(hot.get().getClass().getClassLoader()));

            for (int cycle = 0; cycle < 20; cycle++) {
                Path next = cycle % 2 == 0 ? v2 : v1;
                host.reload("hot", next);
                String expected = cycle % 2 == 0 ? "v2" : "v1";
                assertThat(hot.get().get()).isEqualTo(expected);
                assertThat(host.loaded()).extracting(ModuleHost.LoadedModule::version).containsExactly(expected);
                loaders.add(new WeakReference<>(hot.get().getClass().getClassLoader()));
            }
            assertOldOnesCollected(loaders);
        }
        bus.close();
    }

    /** A module that keeps an object of its own class in its KV namespace as JSON. */
    private Path kvJar(String version) throws IOException {
        return ModuleJars.build(dir, "kv-" + version, "kvhot", "KvModule",
                "Point.java", "package kvhot; public record Point(int x, int y) { }",
                "KvModule.java", """
                package kvhot;

                import dev.pulsebus.module.BotModule;
                import dev.pulsebus.module.ModuleContext;
                import java.util.function.Supplier;

                public final class KvModule implements BotModule {
                    public String name() { return "kvhot"; }
                    public String version() { return "%s"; }
                    public void onLoad(ModuleContext ctx) {
                        Point before = ctx.kv().getJson("point", Point.class);
                        ctx.kv().setJson("point", new Point(before == null ? 1 : before.x() + 1, 2), null);
                        Point now = ctx.kv().getJson("point", Point.class);
                        ctx.provide(Supplier.class, (Supplier<String>) () -> "%s " + now.x());
                    }
                }
                """.formatted(version, version));
    }

    @Test
    @SuppressWarnings("rawtypes") // a service of the raw Supplier type, as a module would ask
    void aModulesJsonInKvDoesNotKeepItsOldClassLoadersLoaded() throws Exception {
        Path v1 = kvJar("v1");
        Path v2 = kvJar("v2");
        EventBus bus = EventBus.create();
        List<WeakReference<ClassLoader>> loaders = new ArrayList<>();
        try (ModuleHost host = ModuleHost.builder(bus, CommandRouter.builder().build()).kv(new MemoryKvStore()).build()) {
            host.load(v1);
            Service<Supplier> kv = host.services.handle("test", Supplier.class);
            assertThat(kv.get().get()).isEqualTo("v1 1");
            loaders.add(new WeakReference<>(kv.get().getClass().getClassLoader()));
            for (int cycle = 0; cycle < 10; cycle++) {
                host.reload("kvhot", cycle % 2 == 0 ? v2 : v1);
                // The value written by the old version's class is read by the new one's.
                assertThat(kv.get().get()).isEqualTo((cycle % 2 == 0 ? "v2 " : "v1 ") + (cycle + 2));
                loaders.add(new WeakReference<>(kv.get().getClass().getClassLoader()));
            }
            assertOldOnesCollected(loaders);
        }
        bus.close();
    }

    @Test
    @SuppressWarnings("rawtypes") // a service of the raw Supplier type, as a module would ask
    void aNewVersionThatFailsToLoadLeavesTheOldOneRunning() throws Exception {
        Path v1 = jar("v1");
        Path broken = ModuleJars.build(dir, "hot-broken", "hot", "HotModule", "HotModule.java", """
                package hot;

                public final class HotModule implements dev.pulsebus.module.BotModule {
                    public String name() { return "hot"; }
                    public void onLoad(dev.pulsebus.module.ModuleContext ctx) {
                        throw new IllegalStateException("version 2 is broken");
                    }
                }
                """);
        EventBus bus = EventBus.create();
        try (ModuleHost host = ModuleHost.builder(bus, CommandRouter.builder().build()).build()) {
            host.load(v1);
            Service<Supplier> hot = host.services.handle("test", Supplier.class);
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> host.reload("hot", broken))
                    .isInstanceOf(ModuleException.class).hasMessageContaining("version 2 is broken");
            assertThat(hot.get().get()).isEqualTo("v1");
            assertThat(host.loaded()).extracting(ModuleHost.LoadedModule::version).containsExactly("v1");
        }
        bus.close();
    }

    @Test
    void aJarModuleTurnedOffInItsSettingsIsNotLoaded() throws Exception {
        Path v1 = jar("v1");
        EventBus bus = EventBus.create();
        CommandRouter router = CommandRouter.builder().build();
        try (ModuleHost host = ModuleHost.builder(bus, router)
                .settings(name -> name.equals("hot") ? java.util.Map.of("enabled", "false") : java.util.Map.of())
                .build()) {
            assertThat(host.load(v1)).isEmpty();
            assertThat(host.loaded()).isEmpty();
            router.register(dev.pulsebus.command.Command.named("hot").handler(c -> { })); // the name is free
        }
        bus.close();
    }

    /** Every loader but the last (the loaded version's) is collected within 30 s of asking for collections. */
    private static void assertOldOnesCollected(List<WeakReference<ClassLoader>> loaders) throws Exception {
        Await.until(Duration.ofSeconds(30), Duration.ofMillis(50), () -> {
            if (collected(loaders) >= loaders.size() - 1) {
                return true;
            }
            System.gc();
            return false;
        });
        assertThat(collected(loaders)).as("old class loaders collected").isEqualTo(loaders.size() - 1);
        assertThat(loaders.get(loaders.size() - 1).get()).as("the loaded version's loader").isNotNull();
    }

    private static int collected(List<WeakReference<ClassLoader>> refs) {
        return (int) refs.stream().filter(r -> r.get() == null).count();
    }
}
