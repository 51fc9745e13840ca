package dev.pulsebus.onebot;

/**
 * Events as the OneBot specs document them, for tests. v11 (botuniverse/onebot-11, {@code event/} and
 * {@code communication/http-post.md}): the private message is the spec's own example verbatim; the others
 * are built field by field from the spec's tables, with the values its text gives. v12 (botuniverse/onebot,
 * {@code specs/interface/}): the spec's example JSON verbatim.
 */
final class Fixtures {

    private Fixtures() {
    }

    static final long SELF = 10001000;

    /** communication/http-post.md, the example report, verbatim. */
    static final String V11_PRIVATE = """
            {
                "time": 1515204254,
                "self_id": 10001000,
                "post_type": "message",
                "message_type": "private",
                "sub_type": "friend",
                "message_id": 12,
                "user_id": 12345678,
                "message": "你好～",
                "raw_message": "你好～",
                "font": 456,
                "sender": {
                    "nickname": "小不点",
                    "sex": "male",
                    "age": 18
                }
            }""";

    /** event/message.md, a group message (array form), {@code anonymous} null as the spec says for a named sender. */
    static String v11Group(long self, long messageId, long groupId, String text) {
        return """
                {"time": 1515204254, "self_id": %d, "post_type": "message", "message_type": "group",
                 "sub_type": "normal", "message_id": %d, "group_id": %d, "user_id": 12345678, "anonymous": null,
                 "message": [{"type": "text", "data": {"text": "%s"}}], "raw_message": "%s", "font": 0,
                 "sender": {"user_id": 12345678, "nickname": "小不点", "card": "", "sex": "male", "age": 18,
                            "area": "", "level": "", "role": "member", "title": ""}}"""
                .formatted(self, messageId, groupId, text, text);
    }

    /** A group message in CQ-code string form, with the message/string.md escapes. */
    static final String V11_GROUP_CQ = """
            {"time": 1515204254, "self_id": 10001000, "post_type": "message", "message_type": "group",
             "sub_type": "normal", "message_id": 77, "group_id": 123456, "user_id": 12345678, "anonymous": null,
             "message": "[CQ:reply,id=76][CQ:at,qq=10001000] - &#91;x&#93; 使用 `&amp;data`[CQ:face,id=178][CQ:share,title=震惊&#44;小伙睡觉前居然...,url=http://baidu.com/?a=1&amp;b=2]",
             "raw_message": "", "font": 0, "sender": {"user_id": 12345678, "nickname": "n"}}""";

    /** event/notice.md: every notice, in the spec's order, with its notice_type and sub_type. */
    static final String[][] V11_NOTICES = {
        {"group_upload", "", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_upload",
             "group_id": 123456, "user_id": 12345678,
             "file": {"id": "abc", "name": "a.txt", "size": 1024, "busid": 102}}"""},
        {"group_admin", "set", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_admin",
             "sub_type": "set", "group_id": 123456, "user_id": 12345678}"""},
        {"group_decrease", "kick", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_decrease",
             "sub_type": "kick", "group_id": 123456, "operator_id": 1, "user_id": 12345678}"""},
        {"group_increase", "approve", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_increase",
             "sub_type": "approve", "group_id": 123456, "operator_id": 1, "user_id": 12345678}"""},
        {"group_ban", "ban", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_ban",
             "sub_type": "ban", "group_id": 123456, "operator_id": 1, "user_id": 12345678, "duration": 600}"""},
        {"friend_add", "", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "friend_add",
             "user_id": 12345678}"""},
        {"group_recall", "", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "group_recall",
             "group_id": 123456, "user_id": 12345678, "operator_id": 1, "message_id": 42}"""},
        {"friend_recall", "", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "friend_recall",
             "user_id": 12345678, "message_id": 43}"""},
        {"notify", "poke", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "notify",
             "sub_type": "poke", "group_id": 123456, "user_id": 12345678, "target_id": 10001000}"""},
        {"notify", "lucky_king", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "notify",
             "sub_type": "lucky_king", "group_id": 123456, "user_id": 12345678, "target_id": 23456789}"""},
        {"notify", "honor", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "notice", "notice_type": "notify",
             "sub_type": "honor", "group_id": 123456, "honor_type": "talkative", "user_id": 12345678}"""},
    };

    /** event/request.md: both requests. */
    static final String[][] V11_REQUESTS = {
        {"friend", "", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "request", "request_type": "friend",
             "user_id": 12345678, "comment": "我是小不点", "flag": "f-1"}"""},
        {"group", "add", """
            {"time": 1515204254, "self_id": 10001000, "post_type": "request", "request_type": "group",
             "sub_type": "add", "group_id": 123456, "user_id": 12345678, "comment": "求加", "flag": "g-1"}"""},
    };

    /** event/meta.md. */
    static final String V11_LIFECYCLE = """
            {"time": 1515204254, "self_id": 10001000, "post_type": "meta_event", "meta_event_type": "lifecycle",
             "sub_type": "connect"}""";

    static String v11Heartbeat(long self, long time, long intervalMs) {
        return """
                {"time": %d, "self_id": %d, "post_type": "meta_event", "meta_event_type": "heartbeat",
                 "status": {"online": true, "good": true}, "interval": %d}""".formatted(time, self, intervalMs);
    }

    /** specs/interface/group/message-events.md, verbatim. */
    static final String V12_GROUP = """
            {
                "id": "b6e65187-5ac0-489c-b431-53078e9d2bbb",
                "self": {
                    "platform": "qq",
                    "user_id": "123234"
                },
                "time": 1632847927.599013,
                "type": "message",
                "detail_type": "group",
                "sub_type": "",
                "message_id": "6283",
                "message": [
                    {
                        "type": "text",
                        "data": {
                            "text": "OneBot is not a bot"
                        }
                    },
                    {
                        "type": "image",
                        "data": {
                            "file_id": "e30f9684-3d54-4f65-b2da-db291a477f16"
                        }
                    }
                ],
                "alt_message": "OneBot is not a bot[图片]",
                "group_id": "12345",
                "user_id": "123456788"
            }""";

    /** The v12 group message's shape, with another id and text (a command). */
    static String v12Group(String id, String self, String messageId, String text) {
        return """
                {"id": "%s", "self": {"platform": "qq", "user_id": "%s"}, "time": 1632847927.599013,
                 "type": "message", "detail_type": "group", "sub_type": "", "message_id": "%s",
                 "message": [{"type": "text", "data": {"text": "%s"}}], "alt_message": "%s",
                 "group_id": "12345", "user_id": "123456788", "qq.nickname": "小不点"}"""
                .formatted(id, self, messageId, text, text);
    }

    /** specs/interface/meta/events.md, the status_update example, verbatim. */
    static final String V12_STATUS_UPDATE = """
            {
                "id": "b6e65187-5ac0-489c-b431-53078e9d2bbb",
                "time": 1632847927.599013,
                "type": "meta",
                "detail_type": "status_update",
                "sub_type": "",
                "status": {
                    "good": true,
                    "bots": [
                        {
                            "self": {
                                "platform": "qq",
                                "user_id": "1234567"
                            },
                            "online": true,
                            "qq.status": "信号弱"
                        },
                        {
                            "self": {
                                "platform": "telegram",
                                "user_id": "2345678"
                            },
                            "online": true
                        }
                    ]
                }
            }""";

    static String v12Heartbeat(String id, long intervalMs) {
        return """
                {"id": "%s", "time": 1632847927.599013, "type": "meta", "detail_type": "heartbeat", "sub_type": "",
                 "interval": %d}""".formatted(id, intervalMs);
    }
}
