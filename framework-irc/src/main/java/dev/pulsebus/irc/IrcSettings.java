package dev.pulsebus.irc;

import dev.pulsebus.config.Secret;
import dev.pulsebus.config.Section;
import dev.pulsebus.platform.PlatformSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The settings of {@code [adapters.irc]}, checked: one bot on one IRC server. Immutable; the secrets
 * (passwords, channel keys) are {@link Secret}s, never printed.
 *
 * @param enabled       whether the bot connects (a section present and not {@code false})
 * @param server        the server's host name
 * @param port          its port (default 6697 with TLS, 6667 without)
 * @param tls           whether to connect with TLS (default true)
 * @param nick          the nick asked for first
 * @param altNicks      the nicks tried, in order, when it is taken; then {@code nick_}, {@code nick__}, ...
 * @param saslUser      the account to log in to with SASL PLAIN; empty for no SASL
 * @param saslPassword  its password
 * @param password      the server password ({@code PASS}); empty for none
 * @param channels      the channels joined after each connect, each with its key (empty for none)
 * @param sendRate      the flood control of what the bot says
 * @param commandPrefix what starts a command on IRC ({@code !}): {@code !echo hi} runs {@code echo}
 * @param tlsCaFile     a PEM file of the certificates to trust instead of the JDK's (a server with its own
 *                      CA, or a self-signed one); empty for the JDK's trust store
 */
public record IrcSettings(boolean enabled, String server, int port, boolean tls, String nick, List<String> altNicks,
                          String saslUser, Secret saslPassword, Secret password, List<Channel> channels,
                          SendRate sendRate, String commandPrefix, String tlsCaFile) implements PlatformSettings {

    /** The keys of {@code [adapters.irc]}. */
    static final Set<String> KEYS = Set.of("enabled", "server", "port", "tls", "nick", "alt_nicks", "sasl_user",
            "sasl_password", "password", "channels", "send_rate", "command_prefix", "tls_ca_file");

    public IrcSettings {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(nick, "nick");
        altNicks = List.copyOf(altNicks);
        Objects.requireNonNull(saslUser, "saslUser");
        Objects.requireNonNull(saslPassword, "saslPassword");
        Objects.requireNonNull(password, "password");
        channels = List.copyOf(channels);
        Objects.requireNonNull(sendRate, "sendRate");
        Objects.requireNonNull(commandPrefix, "commandPrefix");
        Objects.requireNonNull(tlsCaFile, "tlsCaFile");
    }

    /** A channel to join, and its key ({@link Secret#NONE} for none). */
    public record Channel(String name, Secret key) {

        public Channel {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(key, "key");
        }
    }

    /**
     * The bot's flood control: a token bucket that fills at {@code linesPerSecond} up to {@code burst} lines;
     * each line sent takes one. Written {@code "2/s burst 5"} ({@code burst} optional, default 5; the rate may
     * have decimals: {@code "0.5/s"}).
     */
    public record SendRate(double linesPerSecond, int burst) {

        /** Two lines a second, five at once: what most networks let a client say without being cut off. */
        public static final SendRate DEFAULT = new SendRate(2, 5);

        public SendRate {
            if (!(linesPerSecond > 0) || linesPerSecond > 10_000 || burst < 1 || burst > 10_000) {
                throw new IllegalArgumentException("a send rate is above 0 and at most 10000 lines a second, "
                        + "its burst from 1 to 10000");
            }
        }

        /**
         * {@code text} as {@code "<lines>/s [burst <n>]"}.
         *
         * @throws IllegalArgumentException saying what is wrong
         */
        static SendRate parse(String text) {
            String[] words = text.strip().toLowerCase(Locale.ROOT).split("\\s+", -1);
            if ((words.length != 1 && words.length != 3) || !words[0].endsWith("/s")
                    || (words.length == 3 && !words[1].equals("burst"))) {
                throw new IllegalArgumentException("must be written \"<lines>/s\" or \"<lines>/s burst <n>\" "
                        + "(\"2/s burst 5\"), was \"" + text + "\"");
            }
            double rate;
            int burst = DEFAULT.burst();
            try {
                rate = Double.parseDouble(words[0].substring(0, words[0].length() - 2));
                if (words.length == 3) {
                    burst = Integer.parseInt(words[2]);
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("must be written \"<lines>/s\" or \"<lines>/s burst <n>\" "
                        + "(\"2/s burst 5\"), was \"" + text + "\"", e);
            }
            try {
                return new SendRate(rate, burst);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("is out of range (" + e.getMessage() + "), was \"" + text
                        + "\"", e);
            }
        }

        @Override
        public String toString() {
            return (linesPerSecond == Math.rint(linesPerSecond) ? Long.toString((long) linesPerSecond)
                    : Double.toString(linesPerSecond)) + "/s burst " + burst;
        }
    }

    /**
     * Reads {@code [adapters.irc]}: every error names the file and line of the setting.
     *
     * @throws dev.pulsebus.config.ConfigException naming what is wrong
     */
    static IrcSettings read(Section s, boolean clustered) {
        boolean enabled = s.bool("enabled", true);
        String server = s.text("server", "").strip();
        if (enabled && server.isEmpty()) {
            throw s.error("server", "server is not set: the IRC server's host name (irc.libera.chat)");
        }
        if (server.chars().anyMatch(c -> c <= ' ' || c == '/' || c == ':')) {
            throw s.error("server", "server must be a host name, without a scheme or port, was \"" + server + "\"");
        }
        boolean tls = s.bool("tls", true);
        int port = s.integer("port", tls ? 6697 : 6667, 1, 65535);
        String nick = s.text("nick", "pulsebus").strip();
        if (nick.isEmpty()) {
            throw s.error("nick", "nick is empty: the bot needs a nick");
        }
        checkNick(s, "nick", nick);
        List<String> alt = s.list("alt_nicks");
        for (String a : alt) {
            checkNick(s, "alt_nicks", a);
        }
        String saslUser = s.text("sasl_user", "").strip();
        Secret saslPassword = s.secret("sasl_password");
        if (saslUser.isEmpty() != saslPassword.isEmpty()) {
            throw s.error(saslUser.isEmpty() ? "sasl_password" : "sasl_user", saslUser.isEmpty()
                    ? "sasl_password is set without sasl_user: SASL PLAIN needs both"
                    : "sasl_user is set without sasl_password: SASL PLAIN needs both");
        }
        if (saslUser.indexOf('\0') >= 0 || saslPassword.reveal().indexOf('\0') >= 0) {
            throw s.error("sasl_user", "sasl_user and sasl_password must not hold a NUL character");
        }
        Secret password = s.secret("password");
        if (password.reveal().chars().anyMatch(c -> c == ' ' || c == '\r' || c == '\n' || c == 0)) {
            throw s.error("password", "password must not hold spaces or line breaks");
        }
        List<Channel> channels = new ArrayList<>();
        for (String c : s.list("channels")) {
            String[] parts = c.split("\\s+", -1);
            if (parts.length > 2 || "#&+!".indexOf(parts[0].charAt(0)) < 0 || parts[0].length() < 2
                    || parts[0].chars().anyMatch(ch -> ch == ',' || ch == 7 || ch < ' ')) {
                throw s.error("channels", "channels holds \"" + (parts.length > 1 ? parts[0] + " <key>" : c)
                        + "\": each is a channel name starting with #, & , + or !, optionally followed by a space"
                        + " and its key (\"#chan key\")");
            }
            channels.add(new Channel(parts[0], Secret.of(parts.length == 2 ? parts[1] : "")));
        }
        SendRate rate;
        try {
            rate = s.has("send_rate") ? SendRate.parse(s.text("send_rate", "")) : SendRate.DEFAULT;
        } catch (IllegalArgumentException e) {
            throw s.error("send_rate", "send_rate " + e.getMessage());
        }
        String prefix = s.text("command_prefix", "!").strip();
        if (prefix.isEmpty() || prefix.chars().anyMatch(Character::isWhitespace)) {
            throw s.error("command_prefix", "command_prefix must be non-empty, without spaces, was \"" + prefix
                    + "\"");
        }
        String caFile = s.text("tls_ca_file", "").strip();
        if (!caFile.isEmpty()) {
            if (!tls) {
                throw s.error("tls_ca_file", "tls_ca_file is set while tls = false: it names what to trust of a "
                        + "TLS server");
            }
            if (!Files.isReadable(Path.of(caFile))) {
                throw s.error("tls_ca_file", "tls_ca_file names " + caFile + ", which is not a readable file");
            }
        }
        if (enabled && clustered) {
            throw s.error("enabled", "enabled = true with cluster.enabled: every instance would connect to the IRC"
                    + " server and answer each message once; run the IRC bot on one instance without a cluster");
        }
        return new IrcSettings(enabled, server, port, tls, nick, alt, saslUser, saslPassword, password, channels,
                rate, prefix, caFile);
    }

    /** RFC 2812's nick: a letter or one of {@code []\`_^{|}} first, then those, digits and {@code -}. */
    private static void checkNick(Section s, String key, String nick) {
        boolean ok = !nick.isEmpty() && nick.length() <= 64;
        for (int i = 0; ok && i < nick.length(); i++) {
            char c = nick.charAt(i);
            boolean letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || "[]\\`_^{|}".indexOf(c) >= 0;
            ok = letter || (i > 0 && ((c >= '0' && c <= '9') || c == '-'));
        }
        if (!ok) {
            throw s.error(key, key + " holds \"" + nick + "\", which is not an IRC nick: a letter or one of "
                    + "[]\\`_^{|} first, then those, digits and -, at most 64 characters");
        }
    }

    @Override
    public String toString() {
        return "IrcSettings[enabled=" + enabled + ", server=" + server + ", port=" + port + ", tls=" + tls
                + ", nick=" + nick + ", altNicks=" + altNicks + ", saslUser=" + saslUser + ", channels="
                + channels.stream().map(Channel::name).toList() + ", sendRate=" + sendRate + ", commandPrefix="
                + commandPrefix + ", tlsCaFile=" + tlsCaFile + "]";
    }
}
