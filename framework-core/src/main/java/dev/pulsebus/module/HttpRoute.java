package dev.pulsebus.module;

import java.util.Map;

/**
 * A module's HTTP endpoint ({@link ModuleContext#route}), served by the standalone server under
 * {@code /modules/<module>/<path>}. Runs on a virtual thread, so it may block; what it throws becomes a
 * 500 with the message.
 */
@FunctionalInterface
public interface HttpRoute {

    Reply handle(Request request) throws Exception;

    /** The request: method, the path after {@code /modules/<module>}, query parameters (first values), body text. */
    record Request(String method, String path, Map<String, String> query, String body) {
    }

    /** The answer: status, content type and body text. */
    record Reply(int status, String contentType, String body) {

        public static Reply json(int status, String json) {
            return new Reply(status, "application/json; charset=utf-8", json);
        }

        public static Reply text(int status, String text) {
            return new Reply(status, "text/plain; charset=utf-8", text);
        }
    }
}
