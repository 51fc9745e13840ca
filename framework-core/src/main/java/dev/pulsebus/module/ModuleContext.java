package dev.pulsebus.module;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.pipeline.MessagePipeline;
import java.util.Map;

/** What a module is given on load: the bot's bus, commands, pipeline, its own KV namespace and settings. */
public interface ModuleContext {

    /** The module's name. */
    String name();

    EventBus bus();

    CommandRouter commands();

    /** Sends messages: {@code pipeline().message(bot).to(chat).text("...").send()}. */
    MessagePipeline pipeline();

    /** The module's own KV namespace (named after the module). */
    Kv kv();

    /** The module's table of the configuration ({@code [modules.<name>]}), as flat string values. */
    Map<String, String> settings();
}
