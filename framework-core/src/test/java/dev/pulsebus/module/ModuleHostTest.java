package dev.pulsebus.module;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.Outcome;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.MessagePipeline;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.AskException;
import dev.pulsebus.event.GroupMessage;
import dev.pulsebus.event.Message;
import dev.pulsebus.event.MessageEvent;
import dev.pulsebus.testing.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Loading, ownership, rollback, services and lifecycle events, with modules from the classpath. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ModuleHostTest {

    private final EventBus bus = EventBus.create();
    private final CommandRouter router = CommandRouter.builder().build();
    private final InMemoryAdapter adapter = new InMemoryAdapter("test", "bot");
    private MessagePipeline pipeline;
    private ModuleHost host;
    private final List<Object> lifecycle = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        pipeline = MessagePipeline.builder(bus).commands(router).adapter(adapter).build().start();
        host = ModuleHost.builder(bus, router).pipeline(pipeline).build();
        bus.subscribe(ModuleLoaded.class, lifecycle::add);
        bus.subscribe(ModuleUnloaded.class, lifecycle::add);
    }

    @AfterEach
    void stop() throws Exception {
        host.close();
        pipeline.close();
        bus.close();
    }

    /** A module built from lambdas, for the test at hand. */
    record TestModule(String name, List<String> dependencies, Load load, Load unload) implements BotModule {
        interface Load {
            void run(ModuleContext ctx) throws Exception;
        }

        TestModule(String name, Load load) {
            this(name, List.of(), load, ctx -> { });
        }

        @Override
        public void onLoad(ModuleContext ctx) throws Exception {
            load.run(ctx);
        }

        @Override
        public void onUnload(ModuleContext ctx) throws Exception {
            unload.run(ctx);
        }
    }

    private Outcome command(String text) {
        return router.route(new dev.pulsebus.command.CommandSource() {
            @Override
            public String text() {
                return text;
            }

            @Override
            public String userId() {
                return "u1";
            }

            @Override
            public String chatId() {
                return "c1";
            }

            @Override
            public java.util.concurrent.CompletionStage<String> reply(String message) {
                return java.util.concurrent.CompletableFuture.completedFuture("none");
            }
        });
    }

    @Test
    void unloadingAModuleInterruptsItsBlockingCommandsThatRun() throws Exception {
        java.util.concurrent.CountDownLatch running = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch interrupted = new java.util.concurrent.CountDownLatch(1);
        host.load(new TestModule("hang", ctx -> ctx.commands().register(Command.named("wait").blocking().handler(call -> {
            running.countDown();
            try {
                Thread.sleep(Long.MAX_VALUE); // a blocking command that never returns by itself
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        }))));
        host.load(new TestModule("other", ctx -> { }));
        assertThat(command("/wait")).isEqualTo(Outcome.OK);
        assertThat(running.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        assertThat(router.interruptBlocking("other")).as("another module's commands are left alone").isZero();
        host.unload("hang");

        assertThat(interrupted.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("interrupted on unload").isTrue();
    }

    @Test
    void unloadingAModuleFailsTheAsksOfItsCommandsAndHandlers() throws Exception {
        List<CompletionStage<MessageEvent>> asks = new CopyOnWriteArrayList<>();
        List<Object> dialogEnd = new CopyOnWriteArrayList<>();
        host.load(new TestModule("dialogs", ctx -> {
            ctx.commands().register(Command.named("register").blocking().handler(call -> {
                try {
                    call.askText("Name?");
                } catch (AskException e) {
                    dialogEnd.add(e.reason());
                }
            }));
            ctx.bus().on(GroupMessage.class).filter(m -> m.message().plainText().equals("ask me"))
                    .subscribe(m -> asks.add(m.ask(Ask.of("Yes?").anyoneInChat())));
        }));
        adapter.inject(adapter.groupMessage("g1", "ann", Message.text("/register")));
        adapter.inject(adapter.groupMessage("g2", "bob", Message.text("ask me")));
        assertThat(Await.until(Duration.ofSeconds(10), () -> pipeline.pendingAsks() == 2)).isTrue();

        host.unload("dialogs");

        assertThat(Await.until(Duration.ofSeconds(10), () -> dialogEnd.size() == 1)).isTrue();
        assertThat(dialogEnd).containsExactly(AskException.Reason.UNLOADED);
        assertThat(asks).singleElement().satisfies(a -> assertThatThrownBy(() -> a.toCompletableFuture().join())
                .hasCauseInstanceOf(AskException.class).hasMessageContaining("module 'dialogs' unloaded"));
        assertThat(pipeline.pendingAsks()).isZero();
    }

    @Test
    void unloadReleasesEveryKindOfResourceInReverseOrderEvenWhenOnUnloadThrows() throws Exception {
        List<String> released = new ArrayList<>();
        AtomicInteger events = new AtomicInteger();
        AtomicInteger ticks = new AtomicInteger();
        AtomicInteger filtered = new AtomicInteger();
        host.load(new TestModule("owner", List.of(), ctx -> {
            ctx.bus().subscribe(Integer.class, i -> events.incrementAndGet());
            ctx.commands().register(Command.named("mine").handler(call -> { }));
            ctx.middleware(0, e -> {
                filtered.incrementAndGet();
                return e;
            });
            ctx.provide(Supplier.class, (Supplier<String>) () -> "value");
            ctx.every(Duration.ofMillis(5), ticks::incrementAndGet);
            ctx.onRelease(() -> released.add("first"));
            ctx.onRelease(() -> {
                released.add("second");
                throw new IllegalStateException("a release that fails does not stop the others");
            });
            ctx.onRelease(() -> released.add("third"));
        }, ctx -> {
            throw new IllegalStateException("onUnload fails");
        }));
        assertThat(bus.publish(1)).isEqualTo(1);
        assertThat(command("/mine")).isEqualTo(Outcome.OK);
        adapter.inject(adapter.groupMessage("g", "u", Message.text("hi")));
        assertThat(filtered.get()).isEqualTo(1);
        Await.until(Duration.ofSeconds(10), Duration.ofMillis(5), () -> ticks.get() >= 2);
        assertThat(ticks.get()).isGreaterThanOrEqualTo(2);

        host.unload("owner");

        assertThat(released).containsExactly("third", "second", "first");
        assertThat(bus.publish(1)).isZero();
        assertThat(command("/mine")).isEqualTo(Outcome.UNKNOWN);
        adapter.inject(adapter.groupMessage("g", "u", Message.text("hi")));
        assertThat(filtered.get()).isEqualTo(1);
        int after = ticks.get();
        Thread.sleep(50);
        assertThat(ticks.get()).isLessThanOrEqualTo(after + 1); // at most one run already under way
        assertThat(lifecycle).containsExactly(new ModuleLoaded("owner", "0"), new ModuleUnloaded("owner", "0"));
    }

    @Test
    void ownedListsWhatAModuleRegisteredAndForgetsACancelledSubscription() {
        Routes routes = new Routes();
        try (ModuleHost withRoutes = ModuleHost.builder(bus, router).routes(routes).build()) {
            withRoutes.load(new TestModule("owner", ctx -> {
                ctx.commands().register(Command.named("own").handler(call -> call.reply("mine")));
                ctx.bus().on(String.class).name("words").subscribe(s -> { });
                ctx.bus().on(Integer.class).name("numbers").subscribe(n -> { }).cancel();
                ctx.route("get", "/status", req -> HttpRoute.Reply.text(200, "ok"));
            }));
            ModuleHost.Owned owned = withRoutes.owned("owner");
            assertThat(owned).isNotNull();
            assertThat(owned.commands()).containsExactly("own");
            assertThat(owned.subscriptions()).containsExactly("owner/words");
            assertThat(owned.routes()).containsExactly("GET /modules/owner/status");
            withRoutes.unload("owner");
            assertThat(withRoutes.owned("owner")).isNull();
        }
    }

    @Test
    void aModuleThatFailsInOnLoadIsRolledBackAndTheRestRuns() {
        host.load(new TestModule("healthy", ctx -> ctx.commands().register(Command.named("ok").handler(c -> { }))));
        assertThatThrownBy(() -> host.load(new TestModule("broken", ctx -> {
            ctx.commands().register(Command.named("half").handler(c -> { }));
            ctx.bus().subscribe(Integer.class, i -> { });
            throw new IllegalStateException("cannot reach the weather service");
        }))).isInstanceOf(ModuleException.class)
                .hasMessageContaining("module 'broken' failed to load and was rolled back")
                .hasMessageContaining("cannot reach the weather service");
        assertThat(command("/half")).isEqualTo(Outcome.UNKNOWN);
        assertThat(bus.publish(1)).isZero();
        assertThat(command("/ok")).isEqualTo(Outcome.OK);
        assertThat(host.loaded()).extracting(ModuleHost.LoadedModule::name).containsExactly("healthy");
        assertThat(lifecycle).containsExactly(new ModuleLoaded("healthy", "0"));
    }

    @Test
    void anOnLoadThatNeverReturnsTimesOutIsRolledBackAndLeavesTheHostUsable() throws Exception {
        CountDownLatch interrupted = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        List<Throwable> late = new CopyOnWriteArrayList<>();
        CountDownLatch lateTried = new CountDownLatch(1);
        try (ModuleHost bounded = ModuleHost.builder(bus, router).pipeline(pipeline)
                .loadTimeout(Duration.ofMillis(300)).build()) {
            bounded.load(new TestModule("healthy", ctx -> ctx.commands().register(Command.named("ok").handler(c -> { }))));
            assertThatThrownBy(() -> bounded.load(new TestModule("stuck", ctx -> {
                ctx.commands().register(Command.named("half").handler(c -> { }));
                ctx.bus().subscribe(Integer.class, i -> { });
                try {
                    new CountDownLatch(1).await(); // never returns on its own
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
                goOn.await(); // deaf to the interrupt from here: registers after the host gave up on it
                try {
                    ctx.commands().register(Command.named("late").handler(c -> { }));
                } catch (RuntimeException e) {
                    late.add(e);
                }
                lateTried.countDown();
            }))).isInstanceOf(ModuleException.class)
                    .hasMessageContaining("module 'stuck' failed to load and was rolled back")
                    .hasMessageContaining("300 ms (modules.load_timeout_ms)");
            assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("its thread is interrupted").isTrue();
            assertThat(command("/half")).isEqualTo(Outcome.UNKNOWN);
            assertThat(bus.publish(1)).isZero();

            goOn.countDown();
            assertThat(lateTried.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(late).singleElement().isInstanceOf(ModuleException.class);
            assertThat(command("/late")).as("a registration after the timeout is undone").isEqualTo(Outcome.UNKNOWN);

            // the host is usable: it lists, loads (the same name too) and unloads
            assertThat(bounded.loaded()).extracting(ModuleHost.LoadedModule::name).containsExactly("healthy");
            bounded.load(new TestModule("stuck", ctx -> ctx.commands().register(Command.named("half").handler(c -> { }))));
            assertThat(command("/half")).isEqualTo(Outcome.OK);
            bounded.unload("healthy");
            assertThat(command("/ok")).isEqualTo(Outcome.UNKNOWN);
        }
    }

    @Test
    void loadAllSkipsAFailingModuleAndKeepsTheOthers() {
        List<ModuleHost.LoadedModule> done = host.loadAll(List.of(
                new TestModule("a", ctx -> { }),
                new TestModule("b", ctx -> {
                    throw new IllegalStateException("no");
                }),
                new TestModule("c", ctx -> { })));
        assertThat(done).extracting(ModuleHost.LoadedModule::name).containsExactly("a", "c");
    }

    @Test
    @SuppressWarnings("rawtypes") // a service of the raw Supplier type, as a module would ask
    void serviceCallsArePlainCallsCountedAndFailClearlyAfterTheProviderUnloads() {
        host.load(new TestModule("weather", ctx -> ctx.provide(Supplier.class, (Supplier<String>) () -> "sunny")));
        List<Service<Supplier>> handle = new ArrayList<>();
        host.load(new TestModule("greeter", List.of("weather"), ctx -> handle.add(ctx.service(Supplier.class)),
                ctx -> { }));
        Service<Supplier> forecasts = handle.get(0);
        assertThat(forecasts.get().get()).isEqualTo("sunny");
        assertThat(forecasts.provider()).isEqualTo("weather");
        assertThat(host.services.calls("greeter", "weather")).isEqualTo(1);

        assertThatThrownBy(() -> host.unload("weather")).hasMessageContaining("greeter depend on it");
        host.unload("greeter");
        host.unload("weather");
        assertThat(forecasts.available()).isFalse();
        assertThatThrownBy(forecasts::get).isInstanceOf(ModuleException.class)
                .hasMessageContaining("no loaded module provides java.util.function.Supplier");

        // A new provider: the same handle follows it.
        host.load(new TestModule("weather", ctx -> ctx.provide(Supplier.class, (Supplier<String>) () -> "rain")));
        assertThat(forecasts.get().get()).isEqualTo("rain");
        assertThat(host.services.calls("greeter", "weather")).isEqualTo(2);
    }

    @Test
    void twoProvidersOfOneTypeAndMissingDependenciesAreRefused() {
        host.load(new TestModule("one", ctx -> ctx.provide(Runnable.class, () -> { })));
        assertThatThrownBy(() -> host.load(new TestModule("two", ctx -> ctx.provide(Runnable.class, () -> { }))))
                .hasMessageContaining("module 'one' provides it already");
        assertThatThrownBy(() -> host.load(new TestModule("needy", List.of("absent"), ctx -> { }, ctx -> { })))
                .hasMessageContaining("needs 'absent', which is not loaded");
        assertThatThrownBy(() -> host.load(new TestModule("one", ctx -> { })))
                .hasMessageContaining("is loaded already");
    }

    @Test
    void registeringThroughAnUnloadedContextFails() {
        List<ModuleContext> kept = new ArrayList<>();
        host.load(new TestModule("leaky", kept::add));
        host.unload("leaky");
        ModuleContext ctx = kept.get(0);
        assertThatThrownBy(() -> ctx.commands().register(Command.named("late").handler(c -> { })))
                .isInstanceOf(ModuleException.class).hasMessageContaining("unloaded");
        assertThatThrownBy(() -> ctx.bus().subscribe(Integer.class, i -> { })).isInstanceOf(ModuleException.class);
        assertThatThrownBy(() -> ctx.bus().close()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void withoutAConfigurationModulesShareAnEmptyOneAndItsSectionsAreTheirSettings() {
        List<ModuleContext> seen = new ArrayList<>();
        host.load(new TestModule("first", seen::add));
        assertThat(seen.get(0).settings()).isEmpty();
        seen.get(0).config().set("modules.second.city", "Oslo");
        host.load(new TestModule("second", seen::add));

        assertThat(seen.get(1).config()).isSameAs(seen.get(0).config());
        assertThat(seen.get(1).settings()).containsExactly(java.util.Map.entry("city", "Oslo"));
    }

    @Test
    void aClosedHostRefusesNewTimers() {
        host.close();
        assertThatThrownBy(() -> host.load(new TestModule("late", ctx -> ctx.after(Duration.ofSeconds(1), () -> { }))))
                .isInstanceOf(ModuleException.class)
                .hasRootCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
    }

    @Test
    void scheduledTasksRunOnVirtualThreads() throws Exception {
        CountDownLatch ran = new CountDownLatch(1);
        List<Boolean> virtual = new ArrayList<>();
        host.load(new TestModule("timer", ctx -> ctx.after(Duration.ofMillis(10), () -> {
            virtual.add(Thread.currentThread().isVirtual());
            ran.countDown();
        })));
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(virtual).containsExactly(true);
    }
}
