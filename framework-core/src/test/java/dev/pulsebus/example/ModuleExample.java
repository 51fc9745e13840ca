package dev.pulsebus.example;

import dev.pulsebus.bus.EventBus;
import dev.pulsebus.command.Command;
import dev.pulsebus.command.CommandRouter;
import dev.pulsebus.command.Scope;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import dev.pulsebus.module.ModuleHost;
import dev.pulsebus.module.ModuleLoaded;
import dev.pulsebus.module.Service;
import java.time.Duration;
import java.util.List;

public final class ModuleExample {

    /** What other modules may call (module.call): an interface on the bot's classpath. */
    public interface Forecasts {
        String today(String city);
    }

    static final class WeatherModule implements BotModule {
        public String name() { return "weather"; }

        public void onLoad(ModuleContext ctx) {
            ctx.provide(Forecasts.class, city -> "Sunny in " + city);
            ctx.commands().register(Command.named("weather").alias("w").usage("/weather <city>")
                    .cooldown(Duration.ofSeconds(10), Scope.USER)
                    .handler(call -> call.reply("Sunny in " + call.arg(0))));
        }
    }

    static final class GreeterModule implements BotModule {
        public String name() { return "greeter"; }

        public List<String> dependencies() { return List.of("weather"); }

        public void onLoad(ModuleContext ctx) {
            Service<Forecasts> forecasts = ctx.service(Forecasts.class);  // keep the handle, not the object
            ctx.bus().subscribe(String.class,
                    user -> System.out.println("Hello " + user + "! " + forecasts.get().today("Tokyo")));
        }
    }

    public static void main(String[] args) {
        try (EventBus bus = EventBus.create();
             ModuleHost modules = ModuleHost.builder(bus, CommandRouter.builder().build()).build()) {
            bus.subscribe(ModuleLoaded.class, e -> System.out.println("loaded " + e.name()));
            modules.loadAll(List.of(new GreeterModule(), new WeatherModule()));  // dependencies first
            bus.publish("ann");
            modules.unload("greeter");  // its subscription goes with it
            bus.publish("bob");         // so nobody greets bob
            System.out.println("still loaded: " + modules.loaded().stream().map(m -> m.name()).toList());
        }
    }
}
