package dev.pulsebus.telegram;

import dev.pulsebus.internal.Json;
import dev.pulsebus.platform.HttpExchange;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/** The webhook's wire: the secret header and the answers. Stateless. */
final class Webhook {

    static final String SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final byte[] OK = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

    private Webhook() {
    }

    /** A {@code secret_token} for one run: 43 characters of {@code A-Z a-z 0-9 _ -}, 256 random bits. */
    static String randomSecret() {
        byte[] bits = new byte[32];
        RANDOM.nextBytes(bits);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bits);
    }

    static void ok(HttpExchange exchange) {
        exchange.respond(200, "application/json", OK);
    }

    static void answer(HttpExchange exchange, int status, String why) {
        byte[] body = Json.MAPPER.createObjectNode().put("ok", false).put("error_code", status)
                .put("description", why).toString().getBytes(StandardCharsets.UTF_8);
        exchange.respond(status, "application/json", body);
    }
}
