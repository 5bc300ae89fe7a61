import Link from "next/link";

export function Brand({ href = "/" }: { href?: string }) {
  return (
    <Link href={href} className="auth-brand" style={{ textDecoration: "none" }}>
      <span className="brand-mark">T</span>
      Tandem
    </Link>
  );
}
