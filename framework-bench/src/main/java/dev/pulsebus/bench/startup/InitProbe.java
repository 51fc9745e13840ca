package dev.pulsebus.bench.startup;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.event.Message;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.pipeline.InboundResult;
import dev.pulsebus.pipeline.MessagePipeline;

/**
 * startup.init, run in a fresh JVM: the time from main() to a bot that has handled its first command:
 * the bus, the router, the pipeline with an adapter, a module host and a module with a command. Then
 * the same again in the same JVM, its classes loaded. Prints {@code init_ns <first> again_ns <second>}.
 */
public final class InitProbe {

    private InitProbe() {
    }

    public static void main(String[] args) throws Exception {
        // The embedding application's logging is up, and has logged, before it builds a bot: Logback's
        // set-up and its first event (the event, formatter and appender classes) are not part of our time.
        org.slf4j.LoggerFactory.getLogger(InitProbe.class).info("init probe: building a bot");
        long first = bot();
        long again = bot(); // the same work with the classes loaded: what of the first is ours to do
        System.out.println("init_ns " + first + " again_ns " + again);
    }

    /** Builds a bot, has it answer {@code /hello}, and closes it; returns the nanoseconds until it answered. */
    private static long bot() throws Exception {
        long t0 = System.nanoTime();
        EventBus bus = EventBus.create();
        CommandRouter router = CommandRouter.builder().build();
        InMemoryAdapter adapter = new InMemoryAdapter("probe", "bot");
        MessagePipeline pipeline = MessagePipeline.builder(bus).commands(router).adapter(adapter).build().start();
        ModuleHost modules = ModuleHost.builder(bus, router).pipeline(pipeline).build();
        modules.load(new BotModule() {
            @Override
            public String name() {
                return "hello";
            }

            @Override
            public void onLoad(ModuleContext ctx) {
                ctx.commands().register(Command.named("hello").handler(call -> call.reply("hi")));
                ctx.bus().subscribe(String.class, s -> { });
            }
        });
        InboundResult r = adapter.inject(adapter.groupMessage("g", "u", Message.text("/hello")));
        long t1 = System.nanoTime();
        if (r != InboundResult.COMMAND || adapter.sent().isEmpty()) {
            throw new IllegalStateException("the bot did not answer /hello: " + r);
        }
        modules.close();
        pipeline.close();
        bus.close();
        return t1 - t0;
    }
}
