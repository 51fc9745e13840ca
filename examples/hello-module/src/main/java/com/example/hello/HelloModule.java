package com.example.hello;

import dev.pulsebus.command.Command;
import dev.pulsebus.command.Scope;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import java.time.Duration;

/**
 * {@code /hello [NAME]} answers with a greeting; the greeting comes from the module's settings
 * ({@code [modules.hello] greeting = "Hi"} in {@code config/pulsebus.toml}), "Hello" by default.
 * The greeting is read at each answer, so an edit of the file changes the next one without a reload.
 * Everything registered through the context is the module's: unloading or reloading it removes it.
 */
public final class HelloModule implements BotModule {

    @Override
    public String name() {
        return "hello";
    }

    @Override
    public String version() {
        return "1.0";
    }

    @Override
    public void onLoad(ModuleContext ctx) {
        ctx.commands().register(Command.named("hello").usage("/hello [name]").help("Says hello.")
                .cooldown(Duration.ofSeconds(1), Scope.USER)
                .handler(call -> {
                    String who = call.argCount() == 0 ? call.source().userId() : call.rest();
                    // read when used: an edit of the file changes the next answer
                    call.reply(ctx.settings().getOrDefault("greeting", "Hello") + ", " + who + "!");
                }));
    }
}
