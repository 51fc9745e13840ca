package dev.pulsebus.server;

import dev.pulsebus.config.Section;
import dev.pulsebus.config.Secret;
import dev.pulsebus.netty.WriteLimit;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * {@code [server]}: the HTTP listener, its limits and its tokens (masked: the record prints {@code ****}).
 *
 * @param host                    the address it listens on ({@code 127.0.0.1})
 * @param port                    its port (8080; 0: any free one)
 * @param token                   the chat API's bearer token; empty: none
 * @param maxBodyBytes            a request body past this is refused, 413 (64 KiB)
 * @param maxHeaderBytes          request headers past this are refused, 431 (8 KiB)
 * @param maxConnections          open connections at most (1,024)
 * @param requestTimeoutMs        a request not answered within this gets 503 (10 s)
 * @param maxPendingMessages      says waiting to be handled at most; one more gets 503 (10,000)
 * @param maxPollTimeoutMs        the longest long-poll (120 s)
 * @param shutdownTimeoutMs       how long a graceful shutdown may take (10 s)
 * @param adminToken              the admin API's bearer token; empty: {@link #token}, or loopback only
 * @param allowedHosts            names besides the listening one a request's {@code Host} may give
 * @param maxConnectionsPerClient open connections per client address (256)
 * @param maxPendingWriteBytes    a connection whose unread answers pass this is closed (4 MiB)
 */
public record ListenSettings(String host, int port, Secret token, int maxBodyBytes, int maxHeaderBytes,
                             int maxConnections, int requestTimeoutMs, int maxPendingMessages, int maxPollTimeoutMs,
                             int shutdownTimeoutMs, Secret adminToken, List<String> allowedHosts,
                             int maxConnectionsPerClient, int maxPendingWriteBytes) {

    /** The section's keys. */
    public static final Set<String> KEYS = Set.of("host", "port", "token", "max_body_bytes", "max_header_bytes",
            "max_connections", "request_timeout_ms", "max_pending_messages", "max_poll_timeout_ms",
            "shutdown_timeout_ms", "admin_token", "allowed_hosts", "max_connections_per_client",
            "max_pending_write_bytes");
    /** Every setting at its default. */
    public static final ListenSettings DEFAULTS = new ListenSettings("127.0.0.1", 8080, Secret.NONE, 64 * 1024,
            8 * 1024, 1024, 10_000, 10_000, 120_000, 10_000, Secret.NONE, List.of(), 256,
            WriteLimit.DEFAULT_MAX_PENDING);

    public ListenSettings {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(adminToken, "adminToken");
        allowedHosts = List.copyOf(allowedHosts);
    }

    /** Reads {@code [server]}; an error names the setting and where it is set. */
    public static ListenSettings read(Section s) {
        ListenSettings d = DEFAULTS;
        return new ListenSettings(s.text("host", d.host), s.integer("port", d.port, 0, 65535), s.secret("token"),
                s.integer("max_body_bytes", d.maxBodyBytes, 256, 64 * 1024 * 1024),
                s.integer("max_header_bytes", d.maxHeaderBytes, 1024, 1024 * 1024),
                s.integer("max_connections", d.maxConnections, 1, 1_000_000),
                s.integer("request_timeout_ms", d.requestTimeoutMs, 100, 3_600_000),
                s.integer("max_pending_messages", d.maxPendingMessages, 1, 10_000_000),
                s.integer("max_poll_timeout_ms", d.maxPollTimeoutMs, 0, 3_600_000),
                s.integer("shutdown_timeout_ms", d.shutdownTimeoutMs, 100, 3_600_000), s.secret("admin_token"),
                s.list("allowed_hosts").stream().map(h -> h.toLowerCase(Locale.ROOT)).toList(),
                s.integer("max_connections_per_client", d.maxConnectionsPerClient, 1, 1_000_000),
                s.integer("max_pending_write_bytes", d.maxPendingWriteBytes, 4096, 1 << 30));
    }

    public static Builder builder() {
        return DEFAULTS.toBuilder();
    }

    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Builds {@link ListenSettings}, from the defaults or from a copy. Not thread-safe. */
    public static final class Builder {
        private String host;
        private int port;
        private Secret token;
        private int maxBodyBytes;
        private int maxHeaderBytes;
        private int maxConnections;
        private int requestTimeoutMs;
        private int maxPendingMessages;
        private int maxPollTimeoutMs;
        private int shutdownTimeoutMs;
        private Secret adminToken;
        private List<String> allowedHosts;
        private int maxConnectionsPerClient;
        private int maxPendingWriteBytes;

        private Builder(ListenSettings s) {
            host = s.host;
            port = s.port;
            token = s.token;
            maxBodyBytes = s.maxBodyBytes;
            maxHeaderBytes = s.maxHeaderBytes;
            maxConnections = s.maxConnections;
            requestTimeoutMs = s.requestTimeoutMs;
            maxPendingMessages = s.maxPendingMessages;
            maxPollTimeoutMs = s.maxPollTimeoutMs;
            shutdownTimeoutMs = s.shutdownTimeoutMs;
            adminToken = s.adminToken;
            allowedHosts = s.allowedHosts;
            maxConnectionsPerClient = s.maxConnectionsPerClient;
            maxPendingWriteBytes = s.maxPendingWriteBytes;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder token(Secret token) {
            this.token = token;
            return this;
        }

        public Builder maxBodyBytes(int maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        public Builder maxHeaderBytes(int maxHeaderBytes) {
            this.maxHeaderBytes = maxHeaderBytes;
            return this;
        }

        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        public Builder requestTimeoutMs(int requestTimeoutMs) {
            this.requestTimeoutMs = requestTimeoutMs;
            return this;
        }

        public Builder maxPendingMessages(int maxPendingMessages) {
            this.maxPendingMessages = maxPendingMessages;
            return this;
        }

        public Builder maxPollTimeoutMs(int maxPollTimeoutMs) {
            this.maxPollTimeoutMs = maxPollTimeoutMs;
            return this;
        }

        public Builder shutdownTimeoutMs(int shutdownTimeoutMs) {
            this.shutdownTimeoutMs = shutdownTimeoutMs;
            return this;
        }

        public Builder adminToken(Secret adminToken) {
            this.adminToken = adminToken;
            return this;
        }

        public Builder allowedHosts(List<String> allowedHosts) {
            this.allowedHosts = allowedHosts;
            return this;
        }

        public Builder maxConnectionsPerClient(int maxConnectionsPerClient) {
            this.maxConnectionsPerClient = maxConnectionsPerClient;
            return this;
        }

        public Builder maxPendingWriteBytes(int maxPendingWriteBytes) {
            this.maxPendingWriteBytes = maxPendingWriteBytes;
            return this;
        }

        public ListenSettings build() {
            return new ListenSettings(host, port, token, maxBodyBytes, maxHeaderBytes, maxConnections,
                    requestTimeoutMs, maxPendingMessages, maxPollTimeoutMs, shutdownTimeoutMs, adminToken,
                    allowedHosts, maxConnectionsPerClient, maxPendingWriteBytes);
        }
    }
}
