package dev.pulsebus.onebot;

import dev.pulsebus.config.Section;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import java.util.List;
import java.util.Set;

/**
 * OneBot as a platform: {@code [adapters.onebot11]} ({@link V11}) and {@code [adapters.onebot12]}
 * ({@link V12}), each its own provider. Reads the section, refuses what cannot work where the bot runs (a
 * cluster, no HTTP server, an anonymous intake beyond loopback), and starts a {@link OneBotAdapter}.
 */
public abstract sealed class OneBotProvider implements PlatformProvider<OneBotSettings>
        permits OneBotProvider.V11, OneBotProvider.V12 {

    private final int version;

    OneBotProvider(int version) {
        this.version = version;
    }

    /** {@code [adapters.onebot11]}. */
    public static final class V11 extends OneBotProvider {
        public V11() {
            super(11);
        }
    }

    /** {@code [adapters.onebot12]}. */
    public static final class V12 extends OneBotProvider {
        public V12() {
            super(12);
        }
    }

    @Override
    public final String name() {
        return "onebot" + version;
    }

    @Override
    public final Set<String> keys() {
        return OneBotSettings.KEYS;
    }

    @Override
    public final OneBotSettings read(Section section, Deployment deployment) {
        OneBotSettings s = OneBotSettings.read(version, section);
        if (!s.enabled()) {
            return s;
        }
        if (deployment.clustered() && s.mode() == Mode.HTTP && s.url().isEmpty()) {
            throw section.error("url", "url is empty with mode = \"http\" and cluster.enabled: the instance that "
                    + "handles an event is not the one that answers its POST, so replies cannot be quick operations; "
                    + "set url to the implementation's HTTP API");
        }
        if (s.mode() != Mode.FORWARD_WS) {
            if (!deployment.serves()) {
                throw section.error("mode", "mode = \"" + s.mode().setting() + "\" needs the HTTP server, and this "
                        + "bot runs without one: use mode = \"forward-ws\"");
            }
            OneBotSettings.checkIntake(List.of(s), deployment.listenHost(), section.where("access_token"));
        }
        return s;
    }

    @Override
    public final Platform create(OneBotSettings settings, PlatformContext context) {
        OneBotAdapter adapter = OneBotAdapter.create(settings, context.meters());
        context.cluster().ifPresent(adapter::relayThrough); // a bot's reverse WebSocket reaches one instance
        if (context.http().available()) {
            adapter.mount(context.http()); // a mode not configured answers 404 on its paths
        }
        context.adapter(adapter);
        return adapter;
    }
}
