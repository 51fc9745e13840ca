package dev.pulsebus.platform;

import java.util.Set;

/** A platform's settings, read from its section by {@link PlatformProvider#read}: immutable, secrets masked. */
public interface PlatformSettings {

    /** Whether the section turns the platform on ({@code enabled = true}); a platform turned off is not created. */
    boolean enabled();

    /**
     * Host names the platform's peer uses to reach this server's HTTP listener beyond {@code server.host} and
     * {@code server.allowed_hosts} (a webhook's URL): requests naming them pass the server's Host check.
     */
    default Set<String> hostNames() {
        return Set.of();
    }

    /**
     * The largest request body its routes take, when larger than {@code server.max_body_bytes} allows (events
     * posted by an implementation); 0 for the server's limit.
     */
    default int maxBodyBytes() {
        return 0;
    }
}
