package dev.pulsebus.server;

import java.text.Normalizer;
import java.util.Locale;

/**
 * Whether a name is one reserved (the bot's own, {@code bot}) in disguise: compared after NFKC, removal of
 * default-ignorable code points (bidi controls and other format characters, variation selectors, fillers),
 * case folding, and by confusable skeleton, so that {@code bot\u00a0}, {@code bot\u200b}, {@code Bot},
 * {@code ｂｏｔ} and {@code bоt} (a Cyrillic о) are all the bot's name.
 *
 * <p>The skeleton is UTS #39's ({@code skeleton(X)}: each character replaced by its prototype from
 * {@code confusables.txt}) for a documented subset of that table: the Cyrillic and Greek letters that look
 * like Latin letters (both cases, {@link #PROTOTYPES}), and Latin's dotless {@code ı}. Fullwidth and other
 * compatibility forms need no table: NFKC has made them ASCII already. Not covered: the rest of
 * {@code confusables.txt} (Armenian, Cherokee, mathematical alphabets beyond NFKC, digit-letter pairs such
 * as {@code 0}/{@code O}, multi-character prototypes such as {@code rn}/{@code m}). Stateless.
 */
final class ReservedName {

    /** Lookalike, then its Latin prototype, pair after pair (UTS #39 confusables.txt, the subset above). */
    private static final String PROTOTYPES =
            // Cyrillic lower case (and Latin alpha), each like its Latin letter in common fonts
            "аaеeоoрpсcуyхxѕsіiјjԁdһhӏlԛqԝwҽeɑa"
            // Cyrillic upper case
            + "АAВBЕEЅSІIЈJКKМMНHОOРPСCТTХXУYԜWԚQ"
            // Greek lower and upper case
            + "αaοoνvρpυuιiκkχxϲcϳj"
            + "ΑAΒBΕEΖZΗHΙIΚKΜMΝNΟOΡPΤTΥYΧXϹCϺM"
            // Latin dotless i
            + "ıi";
    private static final java.util.Map<Integer, Character> PROTOTYPE = prototypes();

    private ReservedName() {
    }

    /** Whether {@code name} is {@code reserved} in disguise (or plainly). */
    static boolean is(String name, String reserved) {
        return skeleton(name).equals(skeleton(reserved));
    }

    /**
     * {@code name} as compared: NFKC, default-ignorable code points removed, surrounding white space
     * stripped, lookalikes replaced by their Latin prototype, case folded.
     */
    static String skeleton(String name) {
        String n = Normalizer.normalize(name, Normalizer.Form.NFKC);
        StringBuilder out = new StringBuilder(n.length());
        for (int i = 0; i < n.length(); ) {
            int cp = n.codePointAt(i);
            i += Character.charCount(cp);
            if (ignorable(cp)) {
                continue;
            }
            Character latin = PROTOTYPE.get(cp);
            if (latin != null) {
                out.append(latin.charValue());
            } else {
                out.appendCodePoint(cp);
            }
        }
        return Normalizer.normalize(out.toString().strip().toLowerCase(Locale.ROOT), Normalizer.Form.NFKC);
    }

    private static java.util.Map<Integer, Character> prototypes() {
        java.util.Map<Integer, Character> map = new java.util.HashMap<>();
        for (int i = 0; i < PROTOTYPES.length(); i += 2) {
            map.put((int) PROTOTYPES.charAt(i), PROTOTYPES.charAt(i + 1));
        }
        return java.util.Map.copyOf(map);
    }

    /**
     * Unicode's Default_Ignorable_Code_Point, near enough: format characters (Cf: zero-width spaces and
     * joiners, bidi controls, the BOM, soft hyphen, tags), variation selectors, the combining grapheme
     * joiner, Hangul and Mongolian fillers, Khmer inherent vowels.
     */
    private static boolean ignorable(int cp) {
        return Character.getType(cp) == Character.FORMAT || cp == 0x034F || cp == 0x115F || cp == 0x1160
                || cp == 0x17B4 || cp == 0x17B5 || (cp >= 0x180B && cp <= 0x180F) || cp == 0x3164 || cp == 0xFFA0
                || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0000 && cp <= 0xE0FFF);
    }
}
