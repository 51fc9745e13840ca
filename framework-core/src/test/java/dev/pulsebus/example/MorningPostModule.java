package dev.pulsebus.example;

import dev.pulsebus.event.ChatRef;
import dev.pulsebus.event.Self;
import dev.pulsebus.module.BotModule;
import dev.pulsebus.module.ModuleContext;
import java.time.ZoneId;

/** Posts "Good morning!" to a chat at 9:00 every day. */
public final class MorningPostModule implements BotModule {

    /** The bot that posts: the server's HTTP chat bot; a OneBot bot is new Self("onebot11", "<its QQ>"). */
    private static final Self BOT = new Self("http", "bot");

    @Override
    public String name() {
        return "morning";
    }

    @Override
    public void onLoad(ModuleContext ctx) {
        // [modules.morning] room = "lobby" in config/pulsebus.toml; a group (a room of the HTTP chat)
        ChatRef chat = ChatRef.group(BOT.platform(), ctx.settings().getOrDefault("room", "lobby"));
        ZoneId zone = ZoneId.of(ctx.settings().getOrDefault("zone", "UTC"));
        ctx.schedule("0 9 * * *", zone, () -> ctx.pipeline().message(BOT).to(chat).text("Good morning!").send());
    }
}
