package dev.pulsebus.bench.adapter;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * The v11 frames the suite sends and reads, as bytes: the decode row's group message, the {@code /echo hi}
 * group messages of the socket rows (a fresh {@code message_id} each, so the pipeline's deduplication keeps
 * them), the response to an action, and the two fields the implementation's side reads from an action
 * without parsing it: its {@code echo} and the {@code id} of its leading reply segment (the message it
 * answers). Stateless.
 */
final class V11Frames {

    static final long SELF = 10001000;
    /** The socket rows' messages go to this many groups in turn (the adapter's lanes are per chat). */
    static final int GROUPS = 16;
    static final long FIRST_GROUP = 100000;

    /**
     * A v11 group message as NapCat reports one (event/message.md, array form): a reply, a mention of the bot,
     * text and an image, the sender; 726 bytes.
     */
    static final String GROUP_MESSAGE = """
            {"time":1515204254,"self_id":10001000,"post_type":"message","message_type":"group","sub_type":"normal",\
            "message_id":2061854345,"group_id":736482910,"user_id":12345678,"anonymous":null,"message":[\
            {"type":"reply","data":{"id":"2061854344"}},{"type":"at","data":{"qq":"10001000"}},\
            {"type":"text","data":{"text":" is this the one?"}},{"type":"image","data":{"file":"5c9a7e1b0d3f.image",\
            "url":"https://gchat.qpic.cn/gchatpic_new/12345678/736482910-5C9A7E1B0D3F/0"}}],\
            "raw_message":"[CQ:reply,id=2061854344][CQ:at,qq=10001000] is this the one?\
            [CQ:image,file=5c9a7e1b0d3f.image]","font":0,"sender":{"user_id":12345678,"nickname":"小不点",\
            "card":"设计组","sex":"male","age":18,"area":"","level":"12","role":"member","title":""}}""";

    private static final byte[] ECHO_HEAD = ascii("""
            {"time":1515204254,"self_id":10001000,"post_type":"message","message_type":"group","sub_type":"normal",\
            "message_id":""");
    private static final byte[] ECHO_GROUP = ascii(",\"group_id\":");
    private static final byte[] ECHO_TAIL = """
            ,"user_id":12345678,"anonymous":null,"message":[{"type":"text","data":{"text":"/echo hi"}}],\
            "raw_message":"/echo hi","font":0,"sender":{"user_id":12345678,"nickname":"小不点","card":"",\
            "sex":"male","age":18,"area":"","level":"","role":"member","title":""}}""".getBytes(StandardCharsets.UTF_8);

    private static final byte[] RESPONSE_HEAD = ascii("{\"status\":\"ok\",\"retcode\":0,\"data\":{\"message_id\":");
    private static final byte[] RESPONSE_ECHO = ascii("},\"echo\":");
    private static final byte[] ACTION_HEAD = ascii("{\"action\":\"send_group_msg\",\"params\":{\"group_id\":");
    private static final byte[] ACTION_REPLY = ascii(",\"message\":[{\"type\":\"reply\",\"data\":{\"id\":\"");
    private static final byte[] ACTION_TAIL = ascii("\"}},{\"type\":\"text\",\"data\":{\"text\":\"hi\"}}]},\"echo\":\"");

    static final byte[] ECHO_KEY = ascii("\"echo\":");
    private static final byte[] REPLY_ID = ascii("{\"type\":\"reply\",\"data\":{\"id\":\"");
    private static final byte[] MESSAGE_ID = ascii("\"message_id\":");
    private static final byte[] GROUP_ID = ascii("\"group_id\":");

    private V11Frames() {
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code /echo hi} in group {@code FIRST_GROUP + seq % GROUPS}, message id {@code seq}. */
    static ByteBuf echoMessage(ByteBufAllocator alloc, long seq) {
        ByteBuf b = alloc.buffer(ECHO_HEAD.length + ECHO_TAIL.length + 40);
        b.writeBytes(ECHO_HEAD);
        digits(b, seq);
        b.writeBytes(ECHO_GROUP);
        digits(b, FIRST_GROUP + seq % GROUPS);
        b.writeBytes(ECHO_TAIL);
        return b;
    }

    /** The implementation's success response to a send: message id {@code messageId}, {@code echo} as it came. */
    static ByteBuf response(ByteBufAllocator alloc, long messageId, ByteBuf action, int echoFrom, int echoTo) {
        ByteBuf b = alloc.buffer(RESPONSE_HEAD.length + RESPONSE_ECHO.length + 40 + echoTo - echoFrom);
        b.writeBytes(RESPONSE_HEAD);
        digits(b, messageId);
        b.writeBytes(RESPONSE_ECHO);
        b.writeBytes(action, echoFrom, echoTo - echoFrom);
        b.writeByte('}');
        return b;
    }

    /** What the do-nothing bot answers to {@code event}: the {@code send_group_msg} PulseBus would send. */
    static ByteBuf action(ByteBufAllocator alloc, ByteBuf event, long echo) {
        ByteBuf b = alloc.buffer(ACTION_HEAD.length + ACTION_REPLY.length + ACTION_TAIL.length + 64);
        b.writeBytes(ACTION_HEAD);
        digits(b, number(event, GROUP_ID));
        b.writeBytes(ACTION_REPLY);
        digits(b, number(event, MESSAGE_ID));
        b.writeBytes(ACTION_TAIL);
        digits(b, echo);
        b.writeByte('"').writeByte('}');
        return b;
    }

    /** Whether {@code frame} is a response (as {@link #response} writes them), not an event. */
    static boolean isResponse(ByteBuf frame) {
        int at = frame.readerIndex();
        if (frame.readableBytes() < RESPONSE_HEAD.length) {
            return false;
        }
        for (int k = 0; k < RESPONSE_HEAD.length; k++) {
            if (frame.getByte(at + k) != RESPONSE_HEAD[k]) {
                return false;
            }
        }
        return true;
    }

    /** The message id an action answers (its leading reply segment's {@code id}), or -1 when it has none. */
    static long repliedTo(ByteBuf action) {
        int at = indexOf(action, REPLY_ID, action.readerIndex());
        return at < 0 ? -1 : digitsAt(action, at + REPLY_ID.length);
    }

    /** The digits after {@code key} in {@code frame}, or -1. */
    static long number(ByteBuf frame, byte[] key) {
        int at = indexOf(frame, key, frame.readerIndex());
        return at < 0 ? -1 : digitsAt(frame, at + key.length);
    }

    /** Where {@code needle} starts in {@code b} at or after {@code from}, or -1. */
    static int indexOf(ByteBuf b, byte[] needle, int from) {
        byte first = needle[0];
        for (int i = from, last = b.writerIndex() - needle.length; i <= last; i++) {
            i = b.indexOf(i, last + 1, first); // several bytes at a time
            if (i < 0) {
                return -1;
            }
            int k = 1;
            while (k < needle.length && b.getByte(i + k) == needle[k]) {
                k++;
            }
            if (k == needle.length) {
                return i;
            }
        }
        return -1;
    }

    /** The end (exclusive) of the JSON string or number starting at {@code from}. */
    static int valueEnd(ByteBuf b, int from) {
        if (b.getByte(from) == '"') {
            int close = b.indexOf(from + 1, b.writerIndex(), (byte) '"');
            return close < 0 ? b.writerIndex() : close + 1;
        }
        int i = from;
        while (i < b.writerIndex() && b.getByte(i) >= '0' && b.getByte(i) <= '9') {
            i++;
        }
        return i;
    }

    private static long digitsAt(ByteBuf b, int from) {
        long n = 0;
        int i = from;
        for (int d; i < b.writerIndex() && (d = b.getByte(i) - '0') >= 0 && d <= 9; i++) {
            n = n * 10 + d;
        }
        return i == from ? -1 : n;
    }

    private static void digits(ByteBuf b, long n) {
        if (n >= 10) {
            digits(b, n / 10);
        }
        b.writeByte((int) ('0' + n % 10));
    }
}
