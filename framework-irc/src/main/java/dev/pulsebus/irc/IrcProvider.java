package dev.pulsebus.irc;

import dev.pulsebus.config.Section;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The IRC platform, {@code [adapters.irc]}: one bot on one IRC server, found by {@link java.util.ServiceLoader}
 * (this jar's {@code META-INF/services/dev.pulsebus.platform.PlatformProvider}). docs/IRC.md lists its keys.
 */
public final class IrcProvider implements PlatformProvider<IrcSettings> {

    /** The provider {@link java.util.ServiceLoader} makes. */
    public IrcProvider() {
    }

    @Override
    public String name() {
        return IrcAdapter.PLATFORM;
    }

    @Override
    public Set<String> keys() {
        return IrcSettings.KEYS;
    }

    @Override
    public IrcSettings read(Section section, Deployment deployment) {
        return IrcSettings.read(section, deployment.clustered());
    }

    @Override
    public Platform create(IrcSettings settings, PlatformContext context) {
        IrcAdapter adapter = new IrcAdapter(settings, IrcAdapter.Timing.DEFAULT, context.clock(), context.meters());
        context.adapter(adapter);
        return platform(adapter);
    }

    /** What {@code adapter} tells {@code /health}: {@code irc:<server>} up or down, and its warnings. */
    static Platform platform(IrcAdapter adapter) {
        String name = "irc:" + adapter.settings.server();
        return new Platform() {
            @Override
            public Map<String, Boolean> health() {
                return Map.of(name, adapter.up());
            }

            @Override
            public long healthState() {
                return adapter.healthState();
            }

            @Override
            public List<String> warnings() {
                return adapter.warnings();
            }
        };
    }
}
