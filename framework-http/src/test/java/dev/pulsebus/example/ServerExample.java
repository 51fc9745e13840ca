package dev.pulsebus.example;

import dev.pulsebus.command.Command;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.server.PulseBusServer;
import dev.pulsebus.server.ServerConfig;
import java.nio.file.Path;

public final class ServerExample {

    /** A module of the program's own, loaded from the class path (the jars of modules/ load by themselves). */
    static final class PingModule implements BotModule {
        public String name() { return "ping"; }

        public void onLoad(ModuleContext ctx) {
            ctx.commands().register(Command.named("ping").handler(call -> call.reply("pong")));
        }
    }

    public static void main(String[] args) throws Exception {
        Path file = Path.of(args.length > 0 ? args[0] : "config/pulsebus.toml");
        // true: a missing file means the defaults; System.getenv(): PULSEBUS_SERVER_PORT=9090 and the like win
        ServerConfig config = ServerConfig.load(file, true, System.getenv());
        try (PulseBusServer server = PulseBusServer.start(config)) {
            server.modules().load(new PingModule());
            System.out.println("listening on " + server.url());
            // a real program waits here until it is told to stop; close() stops the server gracefully
        }
    }
}
