package ${package};

import dev.pulsebus.command.Command;
import dev.pulsebus.command.Scope;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import java.time.Duration;

/**
 * {@code /${moduleName} [name]} answers with a greeting. The greeting is a setting, read from the module's table
 * in {@code config/pulsebus.toml} ({@code [modules.${moduleName}] greeting = "Hi"}), "Hello" without one.
 * Everything registered through the context belongs to the module: unloading or reloading it removes it.
 */
public final class ${className} implements BotModule {

    @Override
    public String name() {
        return "${moduleName}";
    }

    @Override
    public String version() {
        return "${version}";
    }

    @Override
    public void onLoad(ModuleContext ctx) {
        String greeting = ctx.settings().getOrDefault("greeting", "Hello");
        ctx.commands().register(Command.named("${moduleName}").usage("/${moduleName} [name]").help("Says hello.")
                .cooldown(Duration.ofSeconds(1), Scope.USER)
                .handler(call -> {
                    String who = call.argCount() == 0 ? call.source().userId() : call.rest();
                    call.reply(greeting + ", " + who + "!");
                }));
    }
}
