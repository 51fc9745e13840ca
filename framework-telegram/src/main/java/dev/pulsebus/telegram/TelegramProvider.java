package dev.pulsebus.telegram;

import dev.pulsebus.config.Section;
import dev.pulsebus.platform.Platform;
import dev.pulsebus.platform.PlatformContext;
import dev.pulsebus.platform.PlatformProvider;
import java.util.Set;

/**
 * Telegram as a platform, {@code [adapters.telegram]}: reads the section, refuses what cannot work where the
 * bot runs (a webhook without the HTTP server or, in a cluster, without a shared secret), and starts a
 * {@link TelegramAdapter} whose update offsets are kept in the KV store; in a cluster, polling bots poll from
 * the one instance holding each bot's lease.
 */
public final class TelegramProvider implements PlatformProvider<TelegramSettings> {

    @Override
    public String name() {
        return "telegram";
    }

    @Override
    public Set<String> keys() {
        return TelegramSettings.KEYS;
    }

    @Override
    public TelegramSettings read(Section section, Deployment deployment) {
        TelegramSettings s = TelegramSettings.read(section);
        if (!s.enabled()) {
            return s;
        }
        if (s.mode() == TelegramSettings.Mode.WEBHOOK && !deployment.serves()) {
            throw section.error("mode", "mode = \"webhook\" needs the HTTP server, and this bot runs without one: "
                    + "use mode = \"polling\"");
        }
        if (deployment.clustered() && s.mode() == TelegramSettings.Mode.WEBHOOK && s.webhookSecret().isEmpty()) {
            throw section.error("webhook_secret", "webhook_secret is empty with cluster.enabled: each instance would "
                    + "draw a secret of its own and refuse the posts made with another's; set webhook_secret (1 to "
                    + "256 of A-Z a-z 0-9 _ -) to one value for all instances");
        }
        return s;
    }

    @Override
    public Platform create(TelegramSettings settings, PlatformContext context) {
        // its update offsets in the KV store (in a cluster, the shared database): a restart, or the instance that
        // takes polling over, resumes after the last handed on
        TelegramAdapter adapter = TelegramAdapter.create(settings, context.kv(), context.meters(),
                context.cluster().orElse(null));
        adapter.mount(context.http());
        context.adapter(adapter);
        return adapter;
    }
}
