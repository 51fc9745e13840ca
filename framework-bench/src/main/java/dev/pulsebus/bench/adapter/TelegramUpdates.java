package dev.pulsebus.bench.adapter;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Telegram updates the suite decodes and sends, as the Bot API writes them. Stateless.
 */
final class TelegramUpdates {

    static final String TOKEN = "123456:ABC-DEF1234ghIkl-zyx57W7v6u1234ew11"; // the Bot API docs' example token
    static final String BOT_ID = "123456";
    static final String USERNAME = "pulse_bench_bot";
    static final long CHAT = -1001234567890L;

    /**
     * A supergroup message that replies to another and holds a command for this bot and a mention (the
     * decode row's update); 816 bytes.
     */
    static final String REPLY_WITH_ENTITIES = """
            {"update_id":730214551,"message":{"message_id":5123,"from":{"id":7654321,"is_bot":false,\
            "first_name":"Alice","last_name":"Liddell","username":"alice_l","language_code":"en"},\
            "chat":{"id":-1001234567890,"title":"PulseBus testers","username":"pulsebus_testers",\
            "type":"supergroup"},"date":1733098000,"reply_to_message":{"message_id":5120,"from":{"id":1234567,\
            "is_bot":false,"first_name":"Bob","username":"bob_b","language_code":"de"},"chat":{"id":-1001234567890,\
            "title":"PulseBus testers","username":"pulsebus_testers","type":"supergroup"},"date":1733097900,\
            "text":"Which city has the best weather today?"},\
            "text":"/weather@pulse_bench_bot Tokyo, and @carol_c wants Paris too",\
            "entities":[{"offset":0,"length":24,"type":"bot_command"},{"offset":36,"length":8,"type":"mention"},\
            {"offset":51,"length":5,"type":"bold"}]}}""";

    private static final byte[] ECHO_HEAD = ascii("{\"update_id\":");
    private static final byte[] ECHO_MESSAGE = ascii(",\"message\":{\"message_id\":");
    private static final byte[] ECHO_FROM = ascii(",\"from\":{\"id\":7654321,\"is_bot\":false,\"first_name\":\"Alice\","
            + "\"username\":\"alice_l\"},\"chat\":{\"id\":");
    private static final byte[] ECHO_TAIL = ascii(",\"title\":\"PulseBus testers\","
            + "\"type\":\"supergroup\"},\"date\":1733098000,\"text\":\"/echo@pulse_bench_bot hi\","
            + "\"entities\":[{\"offset\":0,\"length\":21,\"type\":\"bot_command\"}]}}");
    /** The round trip's updates go to this many supergroups in turn (one chat's replies go out one by one). */
    static final int CHATS = 16;

    private TelegramUpdates() {
    }

    /**
     * A {@code getUpdates} answer carrying {@code /echo@pulse_bench_bot hi} updates {@code ids}, update {@code i}
     * in supergroup {@code CHAT - i % CHATS}.
     */
    static byte[] echoAnswer(List<Long> ids) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256 * ids.size());
        out.writeBytes(ascii("{\"ok\":true,\"result\":["));
        for (int i = 0; i < ids.size(); i++) {
            byte[] id = ascii(Long.toString(ids.get(i)));
            if (i > 0) {
                out.write(',');
            }
            out.writeBytes(ECHO_HEAD);
            out.writeBytes(id);
            out.writeBytes(ECHO_MESSAGE);
            out.writeBytes(id);
            out.writeBytes(ECHO_FROM);
            out.writeBytes(ascii(Long.toString(CHAT - ids.get(i) % CHATS)));
            out.writeBytes(ECHO_TAIL);
        }
        out.writeBytes(ascii("]}"));
        return out.toByteArray();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
