package dev.pulsebus.server.example;

import dev.pulsebus.command.Command;
import dev.pulsebus.event.Ask;
import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Self;
import dev.pulsebus.kv.Kv;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import java.time.Duration;
import java.time.ZoneId;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The module the shipped server runs: {@code /echo TEXT}, {@code /roll [SIDES]} (five a minute per user),
 * {@code /daily} (once a day per user), a KV-backed {@code /remember KEY TEXT} and {@code /recall KEY}, per user, a {@code /register}
 * dialog of three typed questions (stopped by {@code /cancel}), and a daily message in one room of the HTTP
 * chat ({@code daily_room}, default {@code lobby}, at {@code daily_cron} in {@code daily_zone}, default
 * {@code 0 9 * * *} UTC; {@code daily_room = ""} turns it off). ({@code /help} is the router's own.) Turn
 * it off with {@code [modules.example] enabled = false}.
 */
public final class ExampleModule implements BotModule {

    private static final String[] FORTUNES = {"a quiet day.", "a good day to ship.", "an old bug finds you.",
        "a test passes on the first try."};

    @Override
    public String name() {
        return "example";
    }

    @Override
    public String version() {
        return "1.0";
    }

    /** The bot of the HTTP chat platform, which the daily message is sent as. */
    private static final Self HTTP_BOT = new Self("http", "bot");

    @Override
    public void onLoad(ModuleContext ctx) {
        Kv kv = ctx.kv();
        ctx.commands().register(Command.named("register").usage("/register")
                .help("Asks three questions and remembers the answers (/cancel stops).")
                .blocking() // a dialog waits for answers: on a virtual thread of its own
                .handler(call -> {
                    String name = call.askText("What is your name? (/cancel stops)");
                    int age = call.askInt("How old are you, " + name + "?");
                    if (age < 0 || age > 150) {
                        call.reply("Nobody is " + age + ". Registration stopped.");
                        return;
                    }
                    int sides = call.askInt(Ask.of("Your favourite die: how many sides?").number());
                    kv.set(call.source().userId() + "/profile", name + ", " + age + ", d" + sides);
                    call.reply("Registered " + name + " (" + age + "), who rolls d" + sides + ". /recall profile shows it.");
                }));
        String room = ctx.settings().getOrDefault("daily_room", "lobby").strip();
        if (!room.isEmpty()) {
            String cron = ctx.settings().getOrDefault("daily_cron", "0 9 * * *");
            ZoneId zone = ZoneId.of(ctx.settings().getOrDefault("daily_zone", "UTC"));
            // the room is read when the job runs (an edit moves it); the cron and zone apply after a reload
            ctx.schedule(cron, zone, () -> {
                String to = ctx.settings().getOrDefault("daily_room", "lobby").strip();
                if (!to.isEmpty()) {
                    ctx.pipeline().message(HTTP_BOT).to(ChatRef.group("http", to))
                            .text("Good morning! Try /roll, or /register if you have not.").send();
                }
            });
        }
        ctx.commands().register(Command.named("echo").usage("/echo <text>").help("Says the text back.")
                .handler(call -> call.reply(call.rest().isBlank() ? "(nothing to echo)" : call.rest())));
        // Five rolls a minute per user: a rate limit, shared across a cluster like /daily's cooldown.
        ctx.commands().register(Command.named("roll").usage("/roll [sides]")
                .help("Rolls a die (6 sides by default), five times a minute.")
                .rateLimit(5, Duration.ofMinutes(1), dev.pulsebus.command.Scope.USER)
                .handler(call -> {
                    int sides = call.argCount() == 0 ? 6 : call.argInt(0);
                    if (sides < 2 || sides > 1_000_000) {
                        call.reply("A die has 2 to 1000000 sides.");
                        return;
                    }
                    call.reply("You rolled " + (1 + ThreadLocalRandom.current().nextInt(sides)) + " (d" + sides + ")");
                }));
        // One call per user per day: in a cluster the cooldown is shared, so another instance refuses it too.
        ctx.commands().register(Command.named("daily").usage("/daily").help("Your fortune, once a day.")
                .cooldown(Duration.ofDays(1), dev.pulsebus.command.Scope.USER)
                .handler(call -> call.reply("Your fortune for today, " + call.source().userId() + ": "
                        + FORTUNES[ThreadLocalRandom.current().nextInt(FORTUNES.length)])));
        ctx.commands().register(Command.named("remember").usage("/remember <key> <text>")
                .help("Remembers a text under a key, for you.")
                .handler(call -> {
                    if (call.argCount() < 2) {
                        call.reply("Usage: /remember <key> <text>");
                        return;
                    }
                    String key = call.arg(0);
                    String text = String.join(" ", call.args().subList(1, call.argCount()));
                    kv.setAsync(call.source().userId() + "/" + key, text)
                            .whenComplete((ok, e) -> call.reply(e == null ? "Remembered " + key + "."
                                    : "Could not remember that: " + e.getMessage()));
                }));
        ctx.commands().register(Command.named("recall").usage("/recall <key>").help("Says what you asked me to remember.")
                .handler(call -> {
                    if (call.argCount() < 1) {
                        call.reply("Usage: /recall <key>");
                        return;
                    }
                    String text = kv.get(call.source().userId() + "/" + call.arg(0));
                    call.reply(text == null ? "I have nothing under " + call.arg(0) + "." : call.arg(0) + ": " + text);
                }));
    }
}
