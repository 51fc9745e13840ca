package dev.pulsebus.runtime;

import dev.pulsebus.config.Section;
import dev.pulsebus.pipeline.InMemoryAdapter;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import dev.pulsebus.platform.PlatformSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A platform for the runtime's tests, plugged in as any jar's would be (test resources list it): an in-memory
 * adapter; {@code mount = true} asks for an HTTP route, which a bot without the server cannot give.
 */
public final class TestChatProvider implements PlatformProvider<TestChatProvider.Settings> {

    /** The adapters the last runtimes made, newest last. */
    static final List<InMemoryAdapter> MADE = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** {@code [adapters.testchat]}. */
    public record Settings(boolean enabled, String bot, boolean mount) implements PlatformSettings {
    }

    @Override
    public String name() {
        return "testchat";
    }

    @Override
    public Set<String> keys() {
        return Set.of("enabled", "bot", "mount");
    }

    @Override
    public Settings read(Section section, Deployment deployment) {
        String bot = section.text("bot", "bot");
        if (bot.isBlank()) {
            throw section.error("bot", "bot is empty");
        }
        return new Settings(section.bool("enabled", true), bot, section.bool("mount", false));
    }

    @Override
    public Platform create(Settings settings, PlatformContext context) {
        if (settings.mount()) {
            context.http().route("/testchat/hook", "/testchat/hook", exchange -> exchange.respond(204, null,
                    new byte[0]));
        }
        InMemoryAdapter adapter = new InMemoryAdapter("testchat", settings.bot());
        context.adapter(adapter);
        MADE.add(adapter);
        return new Platform() {
            @Override
            public Map<String, Boolean> health() {
                return Map.of("testchat:" + settings.bot(), true);
            }
        };
    }
}
