package dev.pulsebus.example;

import dev.pulsebus.command.Command;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.runtime.PulseBus;
import dev.pulsebus.runtime.RuntimeSettings;
import java.nio.file.Path;

public final class PollingBotExample {

    /** A module as you would write one: /echo says its text back. */
    static final class EchoModule implements BotModule {
        @Override
        public String name() {
            return "echo";
        }

        @Override
        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("echo").usage("/echo <text>")
                    .handler(call -> call.reply(call.rest())));
        }
    }

    /** Storage, bus, commands, transcripts, pipeline, the module and the platforms the file configures. */
    static PulseBus start(Path file) throws Exception {
        return PulseBus.builder()
                .settings(RuntimeSettings.load(file, System.getenv())) // variables override the file
                .module(new EchoModule())
                .start();
    }

    public static void main(String[] args) throws Exception {
        // config/pulsebus.toml holds [adapters.telegram] with token = "<the token BotFather gave>"
        PulseBus bot = start(Path.of(args.length > 0 ? args[0] : "config/pulsebus.toml"));
        Runtime.getRuntime().addShutdownHook(new Thread(bot::close)); // Ctrl-C shuts down in order
        bot.awaitClose();
    }
}
