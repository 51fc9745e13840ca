package dev.pulsebus.server;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ReservedNameTest {

    @Test
    void theBotsNameInDisguiseIsTheBotsName() {
        for (String disguised : new String[] {"bot", "Bot", " BOT ", "bot\u00a0", "bot\u200b", "\u202ebot\u202c",
                "b\u200dot", "bot\ufe0f", "\uff42\uff4f\uff54", "\uff22\uff2f\uff34", "b\u043et",
                "b\u03bft", "\u0412\u041e\u0422", "\u0392\u039f\u03a4", "b\u00adot", "\ud835\udc1b\ud835\udc28\ud835\udc2d"}) {
            assertThat(ReservedName.is(disguised, "bot")).as("%s", disguised.codePoints().mapToObj(Integer::toHexString)
                    .toList()).isTrue();
        }
    }

    @Test
    void otherNamesAreNot() {
        for (String name : new String[] {"bottle", "b ot", "bat", "robot", "bót", "ann", "\u0431\u043e\u0442"}) {
            assertThat(ReservedName.is(name, "bot")).as(name).isFalse();
        }
    }
}
