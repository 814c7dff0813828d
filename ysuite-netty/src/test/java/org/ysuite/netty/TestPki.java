package org.ysuite.netty;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Certificate authorities and certificates made in memory for the TLS tests (EC P-256, signed
 * with SHA256withECDSA through the JDK's providers; Bouncy Castle only builds the certificates).
 * Public for ysuite-zmq's TLS tests, which take it from this module's test-jar.
 */
public final class TestPki {

    private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());
    private static final long DAY = 86_400_000L;

    /**
     * A key and its certificate.
     *
     * @param key the private key
     * @param cert the certificate of its public key
     */
    public record Identity(PrivateKey key, X509Certificate cert) {
    }

    private TestPki() {
    }

    /** A self-signed certificate authority named {@code cn}. */
    public static Identity ca(String cn) {
        KeyPair kp = keyPair();
        X500Name name = new X500Name("CN=" + cn);
        try {
            X509v3CertificateBuilder b = builder(name, name, kp);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            return new Identity(kp.getPrivate(), sign(b, kp.getPrivate()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A server certificate issued by {@code ca} for the DNS name {@code host} and the IP address {@code ip}. */
    public static Identity server(Identity ca, String host, String ip) {
        GeneralNames sans = new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.dNSName, host), new GeneralName(GeneralName.iPAddress, ip)});
        return leaf(ca, host, sans, KeyPurposeId.id_kp_serverAuth);
    }

    /** A client certificate issued by {@code ca}, named {@code cn}. */
    public static Identity client(Identity ca, String cn) {
        return leaf(ca, cn, null, KeyPurposeId.id_kp_clientAuth);
    }

    private static Identity leaf(Identity ca, String cn, GeneralNames sans, KeyPurposeId purpose) {
        KeyPair kp = keyPair();
        try {
            X500Name issuer = new X500Name(ca.cert().getSubjectX500Principal().getName());
            X509v3CertificateBuilder b = builder(issuer, new X500Name("CN=" + cn), kp);
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
            if (sans != null) {
                b.addExtension(Extension.subjectAlternativeName, false, sans);
            }
            return new Identity(kp.getPrivate(), sign(b, ca.key()));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair kp) {
        long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                new Date(now - DAY), new Date(now + DAY), subject, kp.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey issuerKey) {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
        } catch (OperatorCreationException | java.security.cert.CertificateException e) {
            throw new IllegalStateException(e);
        }
    }

    private static KeyPair keyPair() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(256);
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
